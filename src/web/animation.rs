//! One animation of a web page, as the data its player (`player.js`) reads: the computed
//! motion as the glTF asset `asgard export --format gltf` writes, and, sampled at the same
//! times, what a picture shows besides the bodies — the view, the lights and the links' end
//! points — taken from the frames the renderer would draw ([`SceneFrames::frame`]), so the
//! page shows what the host's animation shows.
//!
//! The samples are the times the simulator's tracks have points (the motion between them is
//! linear, so the page interpolates exactly what was computed) and a steady 30 or more a
//! second for the view, lights and links, unless one animation would then hold more than
//! [`MAX_NUMBERS`] numbers: then they are that many evenly spaced times' worth, and
//! [`Animation::thinned_from`] says how many there were.

use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::export::gltf::{self, base64, Motion};
use crate::render::export::ExportError;
use crate::render::frame::{Frame, Light, Line};
use crate::render::scene_frame::{frame_times, palette, FrameOptions, SceneFrames};
use crate::scene::Scene;
use crate::sim::physics::SceneMotion;
use nalgebra::Point3;
use serde_json::json;

/// The most numbers (32-bit floats: 16 MB, about 21 MB in the page) the samples of one
/// animation may hold; a longer motion is sampled at fewer, evenly spaced times.
pub const MAX_NUMBERS: usize = 4_000_000;

/// Samples per second at least, for what moves besides the bodies.
const VIEW_RATE: f64 = 30.0;

/// Numbers per sample of the view: translation, rotation, scale and centre.
const CAMERA_NUMBERS: usize = 11;
/// Numbers per light and sample: kind (0 directional, 1 point), direction or position, colour.
const LIGHT_NUMBERS: usize = 7;
/// Numbers per link and sample: its two end points.
const LINK_NUMBERS: usize = 6;
/// Numbers per body and sample in the glTF animation: translation and rotation.
const POSE_NUMBERS: usize = 7;

/// An animation ready to be put in a page.
#[derive(Debug, Clone)]
pub struct Animation {
    /// The picture's size in CSS pixels.
    pub width: u32,
    pub height: u32,
    /// The player's data, as JSON text that holds no `<` (safe inside a `<script>` element).
    pub(crate) data: String,
    /// When the motion was thinned: how many track times it had.
    pub thinned_from: Option<usize>,
    /// How many times it is sampled at.
    pub samples: usize,
}

impl Animation {
    /// The animation of `scene` (drawn by `frames`, built from it) moving by `motion`, shown
    /// `width` × `height` CSS pixels large.
    pub fn new(
        scene: &Scene,
        frames: &SceneFrames,
        motion: &SceneMotion,
        (width, height): (u32, u32),
    ) -> Result<Animation, ExportError> {
        let lights = scene.lights.len().min(Frame::MAX_LIGHTS);
        let per_sample = POSE_NUMBERS * scene.bodies.len()
            + CAMERA_NUMBERS
            + LIGHT_NUMBERS * lights
            + LINK_NUMBERS * scene.links.len();
        let most = (MAX_NUMBERS / per_sample).min(gltf::MAX_SAMPLES);
        if most < 2 {
            return Err(ExportError::Invalid {
                location: "the scene".into(),
                problem: format!(
                    "its bodies, lights and links make {per_sample} numbers per moment of the \
                     motion, so two moments exceed the web page's limit of {MAX_NUMBERS} numbers \
                     per animation"
                ),
            });
        }
        let (start, finish) = (scene.simulator.start, scene.simulator.finish);
        // The tracks' times carry the bodies exactly; the view, lights and links may move
        // between them (a camera on a trajectory over fixed bodies), so a steady rate is added.
        let rate = (1.0 / scene.simulator.step).max(VIEW_RATE);
        let times = gltf::sample_times(
            scene,
            gltf::track_times(scene, motion)
                .into_iter()
                .chain(frame_times(start, finish, rate)),
        );
        let thinned_from = (times.len() > most).then_some(times.len());
        let poses = Motion::at(scene, motion, gltf::thinned(times, scene, most));
        let asset = gltf::build(frames.meshes(), &frames.gltf_bodies(scene), &poses)?;

        let viewport = Viewport::new(f64::from(width), f64::from(height));
        let options = FrameOptions {
            camera: frames.movie_camera(scene, motion, &poses.times),
            // The links are taken one by one (`link_lines`), so each keeps its place.
            links: false,
            ..FrameOptions::default()
        };
        let mut samples = Samples::new(lights, scene.links.len());
        for &time in &poses.times {
            let frame = frames.frame(scene, motion, time, &options, &viewport);
            let links = frames.link_lines(scene, motion, time);
            samples.add(&frame, &links, frames);
        }
        let first = samples.first.unwrap_or_default();
        let sphere = samples.bounds.map_or([0.0, 0.0, 0.0, 1.0], |b: Bounds| {
            let c = b.centre();
            [c.x, c.y, c.z, b.radius().max(1e-6)]
        });
        let times: Vec<f32> = poses.times.iter().map(|&t| t as f32).collect();
        let (camera_count, cameras) = collapse(samples.cameras, CAMERA_NUMBERS);
        let (light_count, light_values) = collapse(samples.lights, LIGHT_NUMBERS * lights);
        let links = LINK_NUMBERS * samples.links_per_sample;
        let (link_count, link_values) = collapse(samples.links, links);
        let data = json!({
            "start": scene.simulator.start,
            "finish": scene.simulator.finish,
            "fov": first.fov_y,
            "ambient": first.ambient,
            "background": &first.background[..3],
            "sphere": sphere,
            "times": floats(&times),
            "gltf": asset.document,
            "buffer": base64(&asset.buffer),
            "cameras": { "count": camera_count, "samples": floats(&cameras) },
            "lights": { "count": light_count, "per_sample": lights, "samples": floats(&light_values) },
            "links": {
                "count": link_count,
                "per_sample": samples.links_per_sample,
                "colour": palette::LINK,
                "samples": floats(&link_values),
            },
        });
        Ok(Animation {
            width,
            height,
            // `<` appears only inside strings (body names), where `\u003c` means the same.
            data: data.to_string().replace('<', "\\u003c"),
            thinned_from,
            samples: times.len(),
        })
    }
}

/// What the first frame says about the whole animation.
#[derive(Clone, Copy, Default)]
struct Constants {
    fov_y: f64,
    ambient: f32,
    background: [f32; 4],
}

/// The per-sample values gathered from the frames.
struct Samples {
    first: Option<Constants>,
    cameras: Vec<f32>,
    lights: Vec<f32>,
    /// Lights per sample (the frame's first ones, as the renderer uses them).
    light_slots: usize,
    links: Vec<f32>,
    /// The scene's links: each keeps its place in every sample.
    links_per_sample: usize,
    /// Around every body and link end over the whole motion, for the clipping planes.
    bounds: Option<Bounds>,
}

impl Samples {
    fn new(light_slots: usize, links_per_sample: usize) -> Samples {
        Samples {
            first: None,
            cameras: Vec::new(),
            lights: Vec::new(),
            light_slots,
            links: Vec::new(),
            links_per_sample,
            bounds: None,
        }
    }

    fn add(&mut self, frame: &Frame, links: &[Option<Line>], frames: &SceneFrames) {
        let camera = &frame.camera;
        self.first.get_or_insert(Constants {
            fov_y: camera.fov_y,
            ambient: frame.ambient,
            background: frame.background,
        });
        self.cameras.extend(camera_numbers(camera));
        for slot in 0..self.light_slots {
            self.lights.extend(match frame.lights.get(slot) {
                Some(light) => light_numbers(light),
                // A light that is not there this time shines with no colour.
                None => [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            });
        }
        // A link whose ends are not known at this time is not drawn: NaN ends.
        for link in links {
            match link {
                Some(line) => self.links.extend(
                    [line.from, line.to]
                        .iter()
                        .flat_map(|p| p.coords.iter().map(|&x| x as f32)),
                ),
                None => self.links.extend([f32::NAN; LINK_NUMBERS]),
            }
        }
        let ends = links.iter().flatten().flat_map(|l| [l.from, l.to]);
        let spheres = frame.bounding_spheres(frames.meshes());
        let corners = spheres.iter().flat_map(|(c, r)| {
            let r = nalgebra::Vector3::repeat(*r);
            [c - r, c + r]
        });
        let points = ends
            .chain(corners)
            .chain(self.bounds.iter().flat_map(|b| [b.min, b.max]));
        self.bounds = Bounds::around(points.collect::<Vec<Point3<f64>>>());
    }
}

fn camera_numbers(camera: &Camera) -> [f32; CAMERA_NUMBERS] {
    let t = camera.translation;
    let q = camera.rotation.quaternion();
    let c = camera.centre;
    [
        t.x,
        t.y,
        t.z,
        q.i,
        q.j,
        q.k,
        q.w,
        camera.scale,
        c.x,
        c.y,
        c.z,
    ]
    .map(|x| x as f32)
}

fn light_numbers(light: &Light) -> [f32; LIGHT_NUMBERS] {
    let (kind, vector, colour) = match light {
        Light::Directional { direction, colour } => (0.0, direction.into_inner(), colour),
        Light::Point { position, colour } => (1.0, position.coords, colour),
    };
    [
        kind,
        vector.x as f32,
        vector.y as f32,
        vector.z as f32,
        colour[0],
        colour[1],
        colour[2],
    ]
}

/// Samples of `width` numbers each: one sample when they are all the same (a still view, a
/// fixed light), else all of them; with the count kept.
fn collapse(values: Vec<f32>, width: usize) -> (usize, Vec<f32>) {
    if width == 0 || values.is_empty() {
        return (0, Vec::new());
    }
    let first = &values[..width];
    let same = |chunk: &[f32]| {
        chunk
            .iter()
            .zip(first)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    };
    if values.chunks(width).all(same) {
        (1, first.to_vec())
    } else {
        (values.len() / width, values)
    }
}

/// Little-endian 32-bit floats in base64.
fn floats(values: &[f32]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    base64(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_samples_collapse_to_one() {
        assert_eq!(collapse(vec![1.0, 2.0, 1.0, 2.0], 2), (1, vec![1.0, 2.0]));
        assert_eq!(
            collapse(vec![1.0, 2.0, 1.0, 3.0], 2),
            (2, vec![1.0, 2.0, 1.0, 3.0])
        );
        let nan = vec![f32::NAN, f32::NAN];
        assert_eq!(collapse(nan, 1).0, 1);
        assert_eq!(collapse(Vec::new(), 3), (0, Vec::new()));
    }
}
