//! Geometry benchmarks: GJK cold vs warm-started, hull construction, broad phase vs brute force.
//!
//! Run with `cargo bench --bench geom`. Each figure is the best of several timed rounds;
//! ratios compare numbers measured in the same run.

use asgard::geom::broad::SweepAndPrune;
use asgard::geom::distance::{closest, PairCache};
use asgard::geom::{Aabb, Convex, ConvexHull};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use std::hint::black_box;
use std::time::{Duration, Instant};

type V3 = Vector3<f64>;

/// A small deterministic generator (no dependency on a random crate).
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn signed(&mut self) -> f64 {
        self.unit() * 2.0 - 1.0
    }

    fn vector(&mut self) -> V3 {
        V3::new(self.signed(), self.signed(), self.signed())
    }

    fn on_sphere(&mut self) -> V3 {
        loop {
            let v = self.vector();
            if v.norm() > 0.1 && v.norm() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

/// Seconds per call of `f`: the best of five rounds of at least 0.2 s each.
fn time_per_call(mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed() < Duration::from_millis(200) {
            f();
            calls += 1;
        }
        best = best.min(start.elapsed().as_secs_f64() / calls as f64);
    }
    best
}

/// Poses of B along a smooth path past A: small steps, as between simulation time steps.
fn path(steps: usize) -> Vec<Isometry3<f64>> {
    (0..steps)
        .map(|k| {
            let t = k as f64 / steps as f64 * std::f64::consts::TAU;
            Isometry3::from_parts(
                Translation3::new(2.6 * t.cos(), 2.6 * t.sin(), 0.3 * (3.0 * t).sin()),
                UnitQuaternion::from_euler_angles(t, 2.0 * t, 0.5 * t),
            )
        })
        .collect()
}

fn gjk(name: &str, a: &Convex, b: &Convex) {
    let poses = path(1000);
    let fixed = Isometry3::identity();
    let cold = time_per_call(|| {
        for p in &poses {
            black_box(closest(a, &fixed, b, p, &mut PairCache::default()));
        }
    }) / poses.len() as f64;
    let mut cache = PairCache::default();
    let warm = time_per_call(|| {
        for p in &poses {
            black_box(closest(a, &fixed, b, p, &mut cache));
        }
    }) / poses.len() as f64;
    println!(
        "gjk {name}: cold {:.0} queries/s, warm {:.0} queries/s, warm/cold speed-up {:.2}x",
        1.0 / cold,
        1.0 / warm,
        cold / warm
    );
}

fn hull_construction(rng: &mut Lcg) {
    let ball: Vec<V3> = (0..1000)
        .map(|_| rng.on_sphere() * rng.unit().cbrt())
        .collect();
    let sphere: Vec<V3> = (0..1000).map(|_| rng.on_sphere()).collect();
    for (name, pts) in [
        ("1000 points in a ball", &ball),
        ("1000 points on a sphere", &sphere),
    ] {
        let t = time_per_call(|| {
            black_box(ConvexHull::new(pts).ok());
        });
        let hull = ConvexHull::new(pts).ok();
        let vertices = hull.map_or(0, |h| h.vertices().len());
        println!("hull of {name}: {:.3} ms ({vertices} vertices)", t * 1e3);
    }
}

/// Boxes of size about 1 scattered in a cube of side `side`, and a velocity for each.
fn scene(rng: &mut Lcg, n: usize, side: f64) -> (Vec<Aabb>, Vec<V3>) {
    let boxes = (0..n)
        .map(|_| {
            let c = V3::new(rng.unit(), rng.unit(), rng.unit()) * side;
            let h = V3::new(rng.unit(), rng.unit(), rng.unit()) * 0.5 + V3::repeat(0.25);
            Aabb::new(c - h, c + h)
        })
        .collect();
    let velocities = (0..n).map(|_| rng.vector() * 0.05).collect();
    (boxes, velocities)
}

fn step(boxes: &mut [Aabb], velocities: &[V3]) {
    for (b, v) in boxes.iter_mut().zip(velocities) {
        b.min += v;
        b.max += v;
    }
}

fn broad_phase(rng: &mut Lcg) {
    // Same density in both scenes: 10,000 boxes in a cube 10^(1/3) times wider.
    let (mut big, big_v) = scene(rng, 10_000, 100.0);
    let (mut small, small_v) = scene(rng, 1_000, 100.0 / 10f64.cbrt());
    let mut sap = SweepAndPrune::new();
    let mut found = 0;
    let sweep = time_per_call(|| {
        step(&mut big, &big_v);
        sap.update(&big);
        found = sap.pairs(|_, _| true).len();
    });
    let tests = sap.tests();
    let brute = time_per_call(|| {
        step(&mut small, &small_v);
        let mut pairs = 0;
        for i in 0..small.len() {
            for j in i + 1..small.len() {
                pairs += usize::from(small[i].overlaps(&small[j]));
            }
        }
        black_box(pairs);
    });
    println!(
        "broad phase: sweep and prune, 10,000 moving boxes: {:.3} ms/step ({found} pairs, {tests} box tests); \
         brute force, 1,000 boxes: {:.3} ms/step; ratio sweep(10k)/brute(1k) {:.2}",
        sweep * 1e3,
        brute * 1e3,
        sweep / brute
    );
}

fn main() {
    let mut rng = Lcg(0x5eed);
    let cube = {
        let pts: Vec<V3> = (0..8)
            .map(|i| V3::new(sign(i, 0), sign(i, 1), sign(i, 2)) * 0.5)
            .collect();
        Convex::hull(&pts).expect("cube")
    };
    let blob = |rng: &mut Lcg, n: usize| {
        let pts: Vec<V3> = (0..n).map(|_| rng.on_sphere()).collect();
        Convex::hull(&pts).expect("blob")
    };
    let ball = Convex::sphere(0.5).expect("sphere");
    gjk("box vs box", &cube, &cube);
    let (b1, b2) = (blob(&mut rng, 200), blob(&mut rng, 200));
    gjk("200-vertex hull vs 200-vertex hull", &b1, &b2);
    gjk("200-vertex hull vs sphere", &b1, &ball);
    hull_construction(&mut rng);
    broad_phase(&mut rng);
}

fn sign(i: usize, bit: usize) -> f64 {
    if i >> bit & 1 == 1 {
        1.0
    } else {
        -1.0
    }
}
