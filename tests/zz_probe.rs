use asgard::scene::evaluate;
use asgard::sim::{Solver, Strategy};
fn plate(top: f64) -> String {
    format!(
        "simulator finish 1 step 0.05
shape_set ball desc {{sphere 0.25}}
shape_set slab desc {{box {{4 0.2 4}}}}
body ball shape ball init_pos {{0 1 0}}
force body ball gravity {{0 -9.81 0}}
body plate shape slab init_pos {{-2 {} -2}} fixed 1
body far shape ball init_pos {{20 0 0}} init_dpos {{0 1 0}}",
        top - 0.2
    )
}
#[test]
fn probe() {
    let solve = |t: &str| {
        let mut s = Solver::new(evaluate(t).unwrap(), Strategy::EventDriven).unwrap();
        s.run_to_end().unwrap();
        s
    };
    let mut s = solve(&plate(0.0));
    eprintln!(
        "before {:?}",
        s.collisions()
            .iter()
            .map(|c| (c.time, c.resting))
            .collect::<Vec<_>>()
    );
    s.update(evaluate(&plate(0.3)).unwrap()).unwrap();
    s.run_to_end().unwrap();
    eprintln!(
        "after {:?}",
        s.collisions()
            .iter()
            .map(|c| (c.time, c.resting))
            .collect::<Vec<_>>()
    );
    let n = solve(&plate(0.3));
    eprintln!(
        "scratch {:?}",
        n.collisions()
            .iter()
            .map(|c| (c.time, c.resting))
            .collect::<Vec<_>>()
    );
    let b = 0;
    for k in 0..20 {
        let t = k as f64 * 0.05;
        eprintln!(
            "{t:.2} {:?} {:?}",
            s.motion().state(b, t).unwrap().position.y,
            n.motion().state(b, t).unwrap().position.y
        );
    }
}
