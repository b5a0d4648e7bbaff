//! Errors (dissertation 4.2.3): inside an element command at the offending word, elsewhere at
//! the command. Each case checks the whole message and the exact span.

use asgard::lang::span::Span;
use asgard::scene::evaluate;

const PRELUDE: &str = "shape_set ball desc {sphere 0.5}\nbody b1 shape ball\n";

/// Evaluates `PRELUDE` + `body`, which must fail with `message` at the `nth` occurrence of
/// `word` in `body`.
fn check(body: &str, word: &str, nth: usize, message: &str) {
    let text = format!("{PRELUDE}{body}");
    let e = evaluate(&text).expect_err(body);
    let start = PRELUDE.len()
        + body
            .match_indices(word)
            .nth(nth)
            .unwrap_or_else(|| panic!("{word:?} #{nth} not in {body:?}"))
            .0;
    let expected = Span::new(start, start + word.len());
    assert_eq!(e.message, message, "in {body:?}");
    assert_eq!(
        e.span,
        expected,
        "in {body:?}: error at {:?}",
        &text[e.span.start..e.span.end]
    );
}

#[test]
fn unknown_option_names_the_valid_ones() {
    check(
        "body b2 shape ball colour red",
        "colour",
        0,
        "unknown option \"colour\" for body: expected shape, init_pos, init_rot, init_dpos, init_drot, mass, inertia, artbody, color, restitution, friction or fixed",
    );
}

#[test]
fn missing_value_is_at_the_option() {
    check(
        "body b2 shape ball init_pos",
        "init_pos",
        0,
        "option \"init_pos\" of body needs a value",
    );
}

#[test]
fn missing_required_option_is_at_the_command() {
    check(
        "body b2 mass 3",
        "body b2 mass 3",
        0,
        "body needs option \"shape\"",
    );
}

#[test]
fn option_given_twice() {
    check(
        "body b2 shape ball mass 1 mass 2",
        "mass",
        1,
        "option \"mass\" is given twice in this body command",
    );
}

#[test]
fn wrong_vector_length() {
    check(
        "body b2 shape ball init_pos {1 2}",
        "{1 2}",
        0,
        "init_pos must be a vector of 3 numbers {x y z}, got 2 elements",
    );
}

#[test]
fn non_numeric_value_is_at_the_element() {
    check(
        "body b2 shape ball init_pos {1 two 3}",
        "two",
        0,
        "expected a number for init_pos, got \"two\"",
    );
    check(
        "body b2 shape ball mass heavy",
        "heavy",
        0,
        "expected a number for mass, got \"heavy\"",
    );
}

#[test]
fn substituted_values_are_reported_at_their_word() {
    check(
        "set p {1 x 3}\nbody b2 shape ball init_pos $p",
        "$p",
        0,
        "expected a number for init_pos, got \"x\"",
    );
}

#[test]
fn out_of_range_values() {
    check(
        "body b2 shape ball mass -1",
        "-1",
        0,
        "mass must be greater than 0, got -1",
    );
    check(
        "body b2 shape ball restitution 1.5",
        "1.5",
        0,
        "restitution must be from 0 (perfectly inelastic) to 1 (elastic), got 1.5",
    );
    check(
        "body b2 shape ball friction -0.2",
        "-0.2",
        0,
        "friction must not be negative, got -0.2",
    );
    check(
        "body b2 shape ball init_pos {1 Inf 0}",
        "Inf",
        0,
        "init_pos must be a finite number, got \"Inf\"",
    );
}

#[test]
fn unknown_shape() {
    check(
        "body b2 shape cube",
        "cube",
        0,
        "unknown shape \"cube\" (shapes defined so far: ball)",
    );
}

#[test]
fn unknown_body_found_at_the_end() {
    check("force body b9 y -9.8", "b9", 0, "unknown body \"b9\"");
}

#[test]
fn unknown_trajectory_found_at_the_end() {
    check(
        "link body1 b1 trajectory path",
        "path",
        0,
        "unknown trajectory \"path\"",
    );
}

#[test]
fn unknown_name_in_an_expression() {
    check(
        "force body b1 x {-[b7 x]}",
        "b7",
        0,
        "\"b7\" is neither a body nor a trajectory, so [b7 …] cannot be used in an expression",
    );
}

#[test]
fn unknown_attribute_in_an_expression() {
    check(
        "force body b1 x {[b1 speed]}",
        "speed",
        0,
        "unknown attribute \"speed\" of body b1: expected x, y, z, dx, dy, dz, rx, ry, rz, drx, dry, drz or mass",
    );
}

#[test]
fn unknown_attribute_found_at_the_end() {
    check(
        "force body b1 x {[b2 speed]}\nbody b2 shape ball",
        "b2",
        0,
        "unknown attribute \"speed\" of body b2: expected x, y, z, dx, dy, dz, rx, ry, rz, drx, dry, drz or mass",
    );
}

#[test]
fn non_numeric_variable_in_an_expression() {
    check(
        "set k stiff\nforce body b1 x {$k * [b1 x]}",
        "$k",
        0,
        "$k is \"stiff\", not a number: an expression of time and state may use only numbers, $t, [BODY ATTR] and [TRAJECTORY ATTR]",
    );
}

#[test]
fn expression_syntax_error_is_located_inside_it() {
    check(
        "force body b1 y {2 * }",
        "",
        // The empty needle matches at every position; the error is at the end of `2 * `.
        "force body b1 y {2 * ".len(),
        "missing operand at _@_\nin expression \"2 * _@_\"",
    );
}

#[test]
fn duplicate_names() {
    check(
        "body b1 shape ball",
        "b1",
        0,
        "duplicate name \"b1\": a body of that name is already defined on line 2",
    );
    check(
        "shape_set ball desc {sphere 1}",
        "ball",
        0,
        "duplicate name \"ball\": a shape_set of that name is already defined on line 1",
    );
    check(
        "trajectory b1 points {{0 0 0 0} {1 0 0 0}}",
        "b1",
        0,
        "duplicate name \"b1\": a body of that name is already defined on line 2",
    );
    check(
        "body set shape ball",
        "set",
        0,
        "\"set\" is already a command: bodies and trajectories become commands, so choose another name",
    );
}

#[test]
fn polyhedron_with_no_volume() {
    check(
        "shape_set flat desc {face {{0 0 0} {1 0 0} {1 1 0} {0 1 0}}}",
        "face",
        0,
        "polyhedron has no volume: all 4 points lie in a plane",
    );
}

#[test]
fn shape_description_errors() {
    check(
        "shape_set s desc {sphere 1 cube 2}",
        "cube",
        0,
        "unknown shape token \"cube\": expected sub, pos, sphere, face, box or color",
    );
    check(
        "shape_set s desc {sphere 1 box {1 1 1}}",
        "box",
        0,
        "a part is a sphere or a polyhedron, not both: start another part with sub",
    );
    check(
        "shape_set s desc {sphere 1 sub pos {1 0 0}}",
        "sub",
        0,
        "this part of the shape has no geometry: give it sphere R, box {sx sy sz} or face {…}",
    );
    check(
        "shape_set s desc {sphere}",
        "sphere",
        0,
        "shape token \"sphere\" needs a value",
    );
}

#[test]
fn overlapping_trajectory_pieces_at_the_second() {
    check(
        "trajectory T points {{0 0 0 0} {2 1 0 0}} points {{1 0 0 0} {3 1 0 0}}",
        "{{1 0 0 0} {3 1 0 0}}",
        0,
        "this piece (times 1 to 3) overlaps an earlier piece (times 0 to 2): the pieces of a trajectory cover disjoint intervals",
    );
}

#[test]
fn trajectory_point_errors() {
    check(
        "trajectory T points {{0 0 0 0} {1 1 0}}",
        "1 1 0",
        0,
        "a trajectory point is {t x y z} (4 numbers), got 3 elements",
    );
    check(
        "trajectory T points {{1 0 0 0} {0.5 1 0 0}}",
        "0.5 1 0 0",
        0,
        "times must increase along a piece: 0.5 comes after 1",
    );
}

#[test]
fn bad_colour() {
    check(
        "body b2 shape ball color blu",
        "blu",
        0,
        "unknown colour \"blu\": expected a colour name (black, white, red, green, blue, yellow, cyan, magenta, orange, gray, brown, pink, purple, …), #rrggbb, or {r g b} with components from 0 to 1",
    );
}

#[test]
fn exclusive_options() {
    check(
        "force body b1 x 1 vector {0 1 0}",
        "vector",
        0,
        "option \"vector\" cannot be combined with \"x\" in force",
    );
    check(
        "torque body b1 gravity {0 -1 0}",
        "gravity",
        0,
        "unknown option \"gravity\" for torque: expected body, x, y, z, vector, trajectory or offset",
    );
    check(
        "force torque 1 body b1 gravity {0 -1 0}",
        "gravity",
        0,
        "gravity is a force, not a torque",
    );
}

#[test]
fn one_camera_and_one_simulator() {
    check(
        "camera scale 2\ncamera scale 3",
        "camera",
        1,
        "the camera is already defined on line 3: a scene has one camera",
    );
    check(
        "simulator finish 1 start 2",
        "1",
        0,
        "finish (1) must be later than start (2)",
    );
}

#[test]
fn errors_outside_element_commands_are_at_the_command() {
    check(
        "set x 1\nfrobnicate x",
        "frobnicate x",
        0,
        "invalid command name \"frobnicate\"",
    );
}

#[test]
fn errors_carry_line_and_column() {
    let text = format!("{PRELUDE}body b2 shape ball init_pos");
    let e = evaluate(&text).unwrap_err();
    assert_eq!(
        e.diagnostic("s.asg"),
        "s.asg:3:20: error: option \"init_pos\" of body needs a value"
    );
}
