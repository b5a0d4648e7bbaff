//! glTF 2.0 export of bodies and their motion, as `.gltf` (JSON with an embedded base64
//! buffer) or `.glb` (binary).
//!
//! One glTF mesh geometry per shape (shared by every body using it; a shape seen in several
//! colours gets one glTF mesh per colour over the same accessors), one material per colour,
//! one node per body with a child node per part, and the motion as one animation whose
//! channels drive each body node's translation and rotation over the times the caller sampled.
//! With the bodies' velocities at those times ([`Motion::rates`]) the samplers are CUBICSPLINE:
//! each key carries the pose's derivative before and after it, so a viewer reads between keys
//! the same cubic Hermite polynomials the simulator's tracks hold (`sim::track`, O(h⁴) between
//! points, where straight lines err by O(h²)), and a collision's jump of velocity is a jump of
//! the tangent at its key. Without them the samplers are LINEAR (the web page's player
//! interpolates linearly).

use super::ExportError;
use crate::render::frame::Rgba;
use crate::render::mesh::{Mesh, MeshKey, MeshLibrary};
use crate::save;
use crate::scene::state::{BodyState, BodyStates};
use crate::scene::Scene;
use crate::sim::physics::SceneMotion;
use nalgebra::{Isometry3, Quaternion, Vector3};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// One part of a body: a shape placed at `offset` in the body's frame, in a colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub mesh: MeshKey,
    pub offset: Vector3<f64>,
    pub colour: Rgba,
}

/// A rigid body: its name, its parts and its pose when there is no motion.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub name: String,
    pub parts: Vec<Part>,
    pub pose: Isometry3<f64>,
}

/// Sampled motion: strictly increasing times (seconds) and, for each body in order, its pose
/// at each time and, optionally, how fast that pose changes there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Motion {
    pub times: Vec<f64>,
    pub poses: Vec<Vec<Isometry3<f64>>>,
    /// For each body, at each time, its velocities just before and just after the time (they
    /// differ where a collision changes them): the tangents of CUBICSPLINE samplers. Empty
    /// for LINEAR samplers.
    pub rates: Vec<Vec<[Rate; 2]>>,
}

/// How fast a body's pose changes: the velocity of its centre of mass (the pose's origin)
/// and its angular velocity, in world axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rate {
    pub velocity: Vector3<f64>,
    pub angular_velocity: Vector3<f64>,
}

impl Rate {
    fn of(state: &BodyState) -> Rate {
        Rate {
            velocity: state.velocity,
            angular_velocity: state.angular_velocity,
        }
    }
}

/// At most this many samples go into a glTF animation; more track points than that are
/// replaced by evenly spaced samples.
pub const MAX_SAMPLES: usize = 20_000;

impl Motion {
    /// Every body's pose at every time any body's track has a point (at most
    /// [`MAX_SAMPLES`], else evenly spaced), from the scene's start to its finish. Where a
    /// body's state jumps (a collision) the state after the jump is kept.
    /// With the bodies' velocities, for cubic-spline interpolation.
    pub fn sampled(scene: &Scene, motion: &SceneMotion) -> Motion {
        let times = thinned(track_times(scene, motion), scene, MAX_SAMPLES);
        Motion::at(scene, motion, times).with_rates(scene, motion)
    }

    /// Every body's pose at each of `times`: the state after a jump at that time, the
    /// initial state where the motion is not known.
    pub fn at(scene: &Scene, motion: &SceneMotion, times: Vec<f64>) -> Motion {
        let poses = (0..scene.bodies.len())
            .map(|b| {
                let initial = BodyState::initial(&scene.bodies[b]);
                times
                    .iter()
                    .map(|&t| motion.body_state(b, t).unwrap_or(initial).pose())
                    .collect()
            })
            .collect();
        Motion {
            times,
            poses,
            rates: Vec::new(),
        }
    }

    /// Adds every body's velocities before and after each time (at rest where the motion is
    /// not known), for CUBICSPLINE samplers.
    pub fn with_rates(mut self, scene: &Scene, motion: &SceneMotion) -> Motion {
        self.rates = (0..scene.bodies.len())
            .map(|b| {
                self.times
                    .iter()
                    .map(|&t| match motion.body_state(b, t) {
                        Some(after) => {
                            let before = motion.state_before(b, t).unwrap_or(after);
                            [Rate::of(&before), Rate::of(&after)]
                        }
                        None => [Rate::default(); 2],
                    })
                    .collect()
            })
            .collect();
        self
    }
}

/// The scene's start and every time any body's track has a point up to its finish, in order,
/// counting times that round to the same 32-bit float (as glTF keeps them) once.
pub fn track_times(scene: &Scene, motion: &SceneMotion) -> Vec<f64> {
    let start = scene.simulator.start;
    sample_times(
        scene,
        (0..scene.bodies.len()).flat_map(|b| motion.track(b, start).times),
    )
}

/// The scene's start and those of `times` from its start to its finish, in order, counting
/// times that round to the same 32-bit float (as glTF keeps them) once.
pub fn sample_times(scene: &Scene, times: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let (start, finish) = (scene.simulator.start, scene.simulator.finish);
    let mut times: Vec<f64> = times
        .into_iter()
        .filter(|t| (start..=finish).contains(t))
        .collect();
    times.push(start);
    times.sort_by(f64::total_cmp);
    times.dedup_by(|later, earlier| *later as f32 <= *earlier as f32);
    times
}

/// `times` when there are at most `most` of them, else `most` evenly spaced times from the
/// scene's start to its finish.
pub fn thinned(times: Vec<f64>, scene: &Scene, most: usize) -> Vec<f64> {
    if times.len() <= most {
        return times;
    }
    let (start, finish) = (scene.simulator.start, scene.simulator.finish);
    let step = (finish - start) / (most.max(2) - 1) as f64;
    (0..most.max(2)).map(|k| start + step * k as f64).collect()
}

/// A built glTF asset: its JSON document and its binary buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Gltf {
    /// The document; the buffer's `uri` is added when writing `.gltf`.
    pub document: Value,
    pub buffer: Vec<u8>,
}

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;

/// Builds the glTF asset for `bodies` moving as `motion` (no animation when `motion` has no
/// times).
pub fn build(meshes: &MeshLibrary, bodies: &[Body], motion: &Motion) -> Result<Gltf, ExportError> {
    check_motion(bodies, motion)?;
    let mut builder = Builder::default();

    // Geometry: accessors per shape, in order of first use.
    let mut geometry: BTreeMap<MeshKey, (usize, usize, usize)> = BTreeMap::new();
    let mut materials: Vec<Rgba> = Vec::new();
    let mut gltf_meshes: Vec<(MeshKey, usize)> = Vec::new();
    let mut nodes: Vec<Value> = Vec::new();
    let mut body_nodes = Vec::new();
    for (b, body) in bodies.iter().enumerate() {
        let mut children = Vec::new();
        for (p, part) in body.parts.iter().enumerate() {
            let mesh = meshes.get(part.mesh).ok_or_else(|| ExportError::Invalid {
                location: format!("body {b} ({}), part {p}", body.name),
                problem: format!("mesh {} is not in the mesh library", part.mesh.0),
            })?;
            if let std::collections::btree_map::Entry::Vacant(entry) = geometry.entry(part.mesh) {
                entry.insert(builder.geometry(mesh));
            }
            let material = index_of(&mut materials, part.colour);
            let gltf_mesh = index_of(&mut gltf_meshes, (part.mesh, material));
            children.push(nodes.len());
            nodes.push(json!({
                "name": format!("{} part {p}", body.name),
                "mesh": gltf_mesh,
                "translation": vec3(&part.offset),
            }));
        }
        body_nodes.push((b, children));
    }
    let mut scene_nodes = Vec::new();
    for (b, children) in body_nodes {
        let body = &bodies[b];
        let pose = motion
            .poses
            .get(b)
            .and_then(|p| p.first())
            .unwrap_or(&body.pose);
        let mut node = json!({
            "name": body.name,
            "translation": vec3(&pose.translation.vector),
            "rotation": quaternion(pose),
        });
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        scene_nodes.push(nodes.len());
        nodes.push(node);
    }

    let mut document = json!({
        "asset": { "version": "2.0", "generator": "Asgard" },
        "scene": 0,
        "scenes": [{ "name": "Asgard scene", "nodes": scene_nodes }],
        "nodes": nodes,
    });
    if !gltf_meshes.is_empty() {
        document["meshes"] = gltf_meshes
            .iter()
            .map(|(key, material)| {
                let (position, normal, indices) = geometry[key];
                json!({
                    "name": format!("shape {}", key.0),
                    "primitives": [{
                        "attributes": { "POSITION": position, "NORMAL": normal },
                        "indices": indices,
                        "material": material,
                        "mode": 4,
                    }],
                })
            })
            .collect();
        document["materials"] = materials.iter().map(material).collect();
    }
    if !motion.times.is_empty() && !bodies.is_empty() {
        document["animations"] = json!([builder.animation(&scene_nodes, motion)]);
    }
    document["accessors"] = json!(builder.accessors);
    document["bufferViews"] = json!(builder.views);
    document["buffers"] = json!([{ "byteLength": builder.buffer.len() }]);
    Ok(Gltf {
        document,
        buffer: builder.buffer,
    })
}

impl Gltf {
    /// The `.gltf` text, with the buffer embedded as a base64 data URI.
    pub fn to_gltf(&self) -> String {
        let mut document = self.document.clone();
        document["buffers"][0]["uri"] = json!(format!(
            "data:application/octet-stream;base64,{}",
            base64(&self.buffer)
        ));
        serde_json::to_string_pretty(&document).expect("JSON values always serialise")
    }

    /// The `.glb` bytes: header, JSON chunk and binary chunk.
    pub fn to_glb(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.document).expect("JSON values always serialise");
        json.resize(json.len().next_multiple_of(4), b' ');
        let mut bin = self.buffer.clone();
        bin.resize(bin.len().next_multiple_of(4), 0);
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }

    /// Writes `.glb` when the path ends in `.glb`, otherwise `.gltf` text, atomically (a
    /// failure leaves the file that was there; a read-only one is refused, see
    /// [`crate::save`]).
    pub fn write(&self, path: &Path) -> Result<(), ExportError> {
        let binary = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
        let bytes = if binary {
            self.to_glb()
        } else {
            self.to_gltf().into_bytes()
        };
        save::write(path, &bytes, save::Options::OUTPUT).map_err(|error| ExportError::Io {
            path: path.to_path_buf(),
            error,
        })
    }
}

/// Accumulates the binary buffer, its views and accessors.
#[derive(Default)]
struct Builder {
    buffer: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    /// Appends one buffer view holding `bytes` and an accessor over it; returns the accessor.
    fn accessor(&mut self, bytes: &[u8], target: Option<u32>, mut accessor: Value) -> usize {
        let offset = self.buffer.len();
        self.buffer.extend_from_slice(bytes);
        let mut view = json!({ "buffer": 0, "byteOffset": offset, "byteLength": bytes.len() });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        accessor["bufferView"] = json!(self.views.len());
        self.views.push(view);
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Adds a mesh's positions, normals and triangle indices; returns their accessors.
    fn geometry(&mut self, mesh: &Mesh) -> (usize, usize, usize) {
        let positions: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.position).collect();
        let normals: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.normal).collect();
        let (min, max) = bounds(&positions);
        let count = positions.len();
        let position = self.accessor(
            &floats(positions.iter().flatten()),
            Some(ARRAY_BUFFER),
            json!({ "componentType": FLOAT, "count": count, "type": "VEC3", "min": min, "max": max }),
        );
        let normal = self.accessor(
            &floats(normals.iter().flatten()),
            Some(ARRAY_BUFFER),
            json!({ "componentType": FLOAT, "count": count, "type": "VEC3" }),
        );
        let indices: Vec<u8> = mesh
            .triangles
            .iter()
            .flatten()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let indices = self.accessor(
            &indices,
            Some(ELEMENT_ARRAY_BUFFER),
            json!({ "componentType": UNSIGNED_INT, "count": 3 * mesh.triangles.len(), "type": "SCALAR" }),
        );
        (position, normal, indices)
    }

    /// The animation: one time accessor shared by every sampler, and a translation and a
    /// rotation sampler per body node: CUBICSPLINE when the motion has its rates and two times
    /// at least, else LINEAR.
    fn animation(&mut self, body_nodes: &[usize], motion: &Motion) -> Value {
        let times: Vec<f32> = motion.times.iter().map(|t| *t as f32).collect();
        let input = self.accessor(
            &floats(&times),
            None,
            json!({
                "componentType": FLOAT, "count": times.len(), "type": "SCALAR",
                "min": [times[0]], "max": [times[times.len() - 1]],
            }),
        );
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for (b, (node, poses)) in body_nodes.iter().zip(&motion.poses).enumerate() {
            let rotations = continuous_rotations(poses);
            // glTF's splines need two keys at least; a single pose is a LINEAR key.
            let rates = motion.rates.get(b).filter(|_| poses.len() >= 2);
            let (translations, rotations, interpolation, keys) = match rates {
                Some(rates) => (
                    spline(
                        poses,
                        rates,
                        |pose| vec3(&pose.translation.vector),
                        |rate, _| vec3(&rate.velocity),
                    ),
                    spline(&rotations, rates, xyzw, |rate, q| {
                        xyzw(&(Quaternion::from_imag(rate.angular_velocity) * q * 0.5))
                    }),
                    "CUBICSPLINE",
                    3 * poses.len(),
                ),
                None => (
                    poses
                        .iter()
                        .flat_map(|p| vec3(&p.translation.vector))
                        .collect(),
                    rotations.iter().flat_map(xyzw).collect(),
                    "LINEAR",
                    poses.len(),
                ),
            };
            for (path, values, kind) in [
                ("translation", translations, "VEC3"),
                ("rotation", rotations, "VEC4"),
            ] {
                let output = self.accessor(
                    &floats(&values),
                    None,
                    json!({ "componentType": FLOAT, "count": keys, "type": kind }),
                );
                channels.push(
                    json!({ "sampler": samplers.len(), "target": { "node": node, "path": path } }),
                );
                samplers.push(
                    json!({ "input": input, "output": output, "interpolation": interpolation }),
                );
            }
        }
        json!({ "name": "motion", "samplers": samplers, "channels": channels })
    }
}

/// A CUBICSPLINE sampler's output: per key its in-tangent (the rate before the key), its
/// value and its out-tangent (the rate after it), the first in-tangent and the last
/// out-tangent zero as glTF asks (they are never used).
fn spline<T, const N: usize>(
    values: &[T],
    rates: &[[Rate; 2]],
    value: impl Fn(&T) -> [f32; N],
    rate: impl Fn(&Rate, &T) -> [f32; N],
) -> Vec<f32> {
    let last = values.len().saturating_sub(1);
    let mut out = Vec::with_capacity(3 * N * values.len());
    for (k, (v, [before, after])) in values.iter().zip(rates).enumerate() {
        out.extend(if k == 0 { [0.0; N] } else { rate(before, v) });
        out.extend(value(v));
        out.extend(if k == last { [0.0; N] } else { rate(after, v) });
    }
    out
}

/// A quaternion as glTF orders it (x, y, z, w). A rotation's tangent is the rate of change
/// of its unit quaternion `q` for a body turning at `ω` (world axes): `q̇ = ½ (0, ω) q`.
fn xyzw(q: &Quaternion<f64>) -> [f32; 4] {
    [q.i as f32, q.j as f32, q.k as f32, q.w as f32]
}

/// Checks that the motion matches the bodies and that times increase strictly.
fn check_motion(bodies: &[Body], motion: &Motion) -> Result<(), ExportError> {
    if motion.times.is_empty() {
        return Ok(());
    }
    let per_body = |what: &str, count: usize| {
        if count == bodies.len() {
            return Ok(());
        }
        Err(ExportError::Invalid {
            location: "motion".into(),
            problem: format!(
                "has {what} for {count} bodies but there are {}",
                bodies.len()
            ),
        })
    };
    per_body("poses", motion.poses.len())?;
    // glTF stores times as 32-bit floats, which must still increase strictly.
    for (i, pair) in motion.times.windows(2).enumerate() {
        if (pair[1] as f32).partial_cmp(&(pair[0] as f32)) != Some(std::cmp::Ordering::Greater)
            || !pair[1].is_finite()
        {
            return Err(ExportError::Invalid {
                location: format!("motion, time {}", i + 1),
                problem: format!(
                    "{} does not come after {} (as 32-bit floats)",
                    pair[1], pair[0]
                ),
            });
        }
    }
    if !motion.rates.is_empty() {
        per_body("rates", motion.rates.len())?;
    }
    if let Some(b) = (0..motion.rates.len()).find(|&b| motion.rates[b].len() != motion.times.len())
    {
        return Err(ExportError::Invalid {
            location: format!("motion of body {b} ({})", bodies[b].name),
            problem: format!(
                "has {} rates for {} times",
                motion.rates[b].len(),
                motion.times.len()
            ),
        });
    }
    for (b, poses) in motion.poses.iter().enumerate() {
        if poses.len() != motion.times.len() {
            return Err(ExportError::Invalid {
                location: format!("motion of body {b} ({})", bodies[b].name),
                problem: format!("has {} poses for {} times", poses.len(), motion.times.len()),
            });
        }
        if let Some(s) = poses
            .iter()
            .position(|p| !p.translation.vector.iter().all(|x| x.is_finite()))
        {
            return Err(ExportError::Invalid {
                location: format!("motion of body {b} ({}), sample {s}", bodies[b].name),
                problem: "position is not finite".into(),
            });
        }
    }
    Ok(())
}

/// Unit quaternions with signs chosen so that neighbours are on the same side, so that
/// interpolation takes the short way round.
fn continuous_rotations(poses: &[Isometry3<f64>]) -> Vec<Quaternion<f64>> {
    let mut previous: Option<Quaternion<f64>> = None;
    poses
        .iter()
        .map(|pose| {
            let mut q = *pose.rotation.quaternion();
            if previous.is_some_and(|p| p.dot(&q) < 0.0) {
                q = -q;
            }
            previous = Some(q);
            q
        })
        .collect()
}

fn quaternion(pose: &Isometry3<f64>) -> [f32; 4] {
    xyzw(pose.rotation.quaternion())
}

fn material(colour: &Rgba) -> Value {
    let mut value = json!({
        "pbrMetallicRoughness": { "baseColorFactor": colour, "metallicFactor": 0.0, "roughnessFactor": 1.0 },
    });
    if colour[3] < 1.0 {
        value["alphaMode"] = json!("BLEND");
    }
    value
}

/// The index of `item` in `items`, appending it first when absent.
fn index_of<T: PartialEq>(items: &mut Vec<T>, item: T) -> usize {
    items.iter().position(|x| *x == item).unwrap_or_else(|| {
        items.push(item);
        items.len() - 1
    })
}

fn vec3(v: &Vector3<f64>) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

fn bounds(points: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    (min, max)
}

fn floats<'a>(values: impl IntoIterator<Item = &'a f32>) -> Vec<u8> {
    values.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Standard base64 with padding (RFC 4648), for the data URI (and the web page's data).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::UnitQuaternion;

    #[test]
    fn base64_matches_rfc_4648_examples() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn rotations_take_the_short_way() {
        let a = Isometry3::from_parts(
            Default::default(),
            UnitQuaternion::from_euler_angles(0.0, 0.0, 3.0),
        );
        let b = Isometry3::from_parts(
            Default::default(),
            UnitQuaternion::from_euler_angles(0.0, 0.0, -3.0),
        );
        let q = continuous_rotations(&[a, b]);
        assert!(q[0].dot(&q[1]) > 0.0);
    }

    #[test]
    fn inconsistent_motion_is_located() {
        let body = Body {
            name: "b1".into(),
            parts: Vec::new(),
            pose: Isometry3::identity(),
        };
        let motion = Motion {
            times: vec![0.0, 1.0, 1.0],
            poses: vec![vec![Isometry3::identity(); 3]],
            ..Motion::default()
        };
        let error = build(&MeshLibrary::new(), std::slice::from_ref(&body), &motion).unwrap_err();
        assert_eq!(
            error.to_string(),
            "motion, time 2: 1 does not come after 1 (as 32-bit floats)"
        );
        let motion = Motion {
            times: vec![0.0, 1.0, 1.0 + 1e-12],
            poses: vec![vec![Isometry3::identity(); 3]],
            ..Motion::default()
        };
        assert!(build(&MeshLibrary::new(), std::slice::from_ref(&body), &motion).is_err());
        let motion = Motion {
            times: vec![0.0, 1.0],
            poses: vec![vec![Isometry3::identity(); 3]],
            ..Motion::default()
        };
        let error = build(&MeshLibrary::new(), &[body], &motion).unwrap_err();
        assert!(
            error.to_string().starts_with("motion of body 0 (b1)"),
            "{error}"
        );
    }
}
