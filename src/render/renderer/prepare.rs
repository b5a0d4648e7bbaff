//! The first stage of drawing a frame, on the CPU only ([`Renderer::prepare`]): the instances
//! and lines in their batches, the lights as the shaders take them, the shadow view and
//! whether its map must be drawn again, and the ground, kept as a [`Prepared`] frame for
//! [`Renderer::submit`].

use super::*;

/// The frame's lights as the shaders take them.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct LightValues {
    pub(super) count: usize,
    /// Eye space: position (w = 1) or direction towards the light (w = 0).
    pub(super) positions: [f32; 4 * MAX_LIGHTS],
    pub(super) colours: [f32; 3 * MAX_LIGHTS],
    /// The light casting shadows, or -1.
    pub(super) shadow_light: i32,
    /// The world's up direction in eye space.
    pub(super) up: [f32; 3],
    pub(super) ambient: f32,
}

/// The ground as the ground program takes it.
#[derive(Clone, PartialEq)]
pub(super) struct GroundValues {
    pub(super) origin: [f32; 3],
    pub(super) axis_u: [f32; 3],
    pub(super) axis_v: [f32; 3],
    pub(super) normal: [f32; 3],
    pub(super) extent: f32,
    pub(super) spacing: f32,
    pub(super) colour: Rgba,
    pub(super) line_colour: Rgba,
    pub(super) grid: bool,
    /// The share of the light on the ground that the key light brings, which its shadows take
    /// away.
    pub(super) key_share: f32,
}

/// A prepared frame: everything [`Renderer::submit`] needs besides the uploaded buffers.
pub(super) struct Prepared {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) view: Matrix4<f64>,
    pub(super) projection: Matrix4<f64>,
    /// Eye units per pixel at unit depth.
    pub(super) per_pixel: f64,
    pub(super) lights: LightValues,
    pub(super) background: Rgba,
    pub(super) wireframe: bool,
    /// Every body is opaque: the bodies are drawn without blending, which a software
    /// rasteriser pays for at every fragment.
    pub(super) opaque: bool,
    pub(super) shadow: Option<ShadowView>,
    /// The shadow map must be drawn again: all of it, or only in this region.
    pub(super) shadow_stale: bool,
    pub(super) shadow_region: Option<Region>,
    pub(super) ground: Option<GroundValues>,
    pub(super) antialias: bool,
    /// Where the anti-aliasing pass smooths (`None`: everywhere; see
    /// [`post::smoothing_bounds`]).
    pub(super) smoothing: Option<Region>,
    /// Bodies are culled (see [`cull`]).
    pub(super) culling: bool,
    /// The scene's line vertices (the gizmo's letters follow them).
    pub(super) lines: Range<usize>,
    pub(super) gizmo: Option<gizmo::Gizmo>,
    /// Drawn again only in this region of the kept picture (see [`changes`]).
    pub(super) region: Option<Region>,
    /// What the picture target holds once this frame is drawn.
    pub(super) keep: Option<Kept>,
}

impl Prepared {
    /// The mesh program this frame needs.
    pub(super) fn mesh_variant(&self) -> MeshVariant {
        MeshVariant {
            lights: self.lights.count,
            shadows: self.shadow.is_some(),
            balls: false,
        }
    }

    /// The mesh program for the editing aids (markers, arrowheads): lit as the bodies are,
    /// but without the shadow lookup, since aids take no shadows (a lookup whose result is
    /// not used still costs a software rasteriser its time).
    pub(super) fn aid_variant(&self) -> MeshVariant {
        MeshVariant {
            shadows: false,
            ..self.mesh_variant()
        }
    }

    /// The program for this frame's balls (see [`super::batches::MeshRef::Ball`]).
    pub(super) fn ball_variant(&self) -> MeshVariant {
        MeshVariant {
            balls: true,
            ..self.mesh_variant()
        }
    }

    /// The ground program this frame needs, if it has a ground.
    pub(super) fn ground_variant(&self) -> Option<GroundVariant> {
        self.ground.as_ref().map(|g| GroundVariant {
            grid: g.grid,
            shadows: self.shadow.is_some(),
        })
    }
}

impl Renderer {
    /// The first stage of [`Renderer::draw`], on the CPU only: the instances, lines, lights,
    /// shadow view and ground of `frame` in a picture of `width` × `height` pixels.
    pub fn prepare(&mut self, frame: &Frame, width: u32, height: u32) -> Result<(), RenderError> {
        self.prepared = None;
        if let Some((object, o)) = frame
            .objects
            .iter()
            .enumerate()
            .find(|(_, o)| !self.meshes.contains_key(&o.mesh))
        {
            return Err(RenderError::MissingMesh {
                key: o.mesh,
                object,
            });
        }
        if width == 0 || height == 0 {
            return Ok(());
        }
        let viewport = Viewport::new(f64::from(width), f64::from(height));
        let camera = &frame.camera;
        let eye = Eye::new(camera, &viewport);
        let ground = frame.ground.as_ref().filter(|_| frame.looks.ground);
        let spheres = frame.bounding_spheres_by(|key| self.meshes.get(&key).map(|m| m.radius));
        let (mut near, mut far) = camera.clip_range(&spheres);
        if let Some(ground) = ground {
            // The ground disc's depths: its centre's, give or take its reach along the view.
            let normal = camera.rotation * ground.normal.into_inner();
            let spread = ground.extent * camera.scale * (1.0 - normal.z * normal.z).max(0.0).sqrt();
            let depth = eye.depth(&ground.origin);
            far = far.max((depth + spread) * 1.05);
            // The ground may reach up to the eye: clip it only very near.
            let ground_near = ((depth - spread) * 0.95).max(far * 1e-3);
            near = if spheres.is_empty() {
                ground_near
            } else {
                near.min(ground_near)
            };
        }
        let projection = camera.projection_matrix(viewport.aspect(), near, far);

        let lights = frame.effective_lights();
        let solid_bodies = !frame.wireframe && !frame.objects.is_empty();
        let shadow = if frame.looks.shadows && solid_bodies {
            let bodies = frame.objects.iter().map(|o| {
                (
                    o.placement() * Point3::origin(),
                    self.meshes[&o.mesh].radius,
                )
            });
            shadow::enclosing(bodies).and_then(|(centre, radius)| {
                let pixels = 2.0 * radius / eye.world_length(&centre, 1.0);
                let size = shadow::map_size(pixels);
                shadow::shadow_view(&lights, (centre, radius), ground, &eye.origin, size)
            })
        } else {
            None
        };
        let smoothing = if frame.looks.antialias {
            // The key light's shadows of the bodies (the first spheres) on the ground have
            // edges too.
            let key = shadow.as_ref().map(|s| &lights[s.light]).zip(ground);
            let bodies = spheres.iter().take(frame.objects.len());
            let shadows = bodies.filter_map(|&sphere| {
                key.and_then(|(light, ground)| post::shadow_on_ground(sphere, light, ground))
            });
            post::smoothing_bounds(
                spheres
                    .iter()
                    .copied()
                    .chain(shadows)
                    .map(|(c, r)| (Point3::from(c - eye.origin), r)),
                &eye.view,
                &projection,
                (width, height),
                frame.handle_radius,
            )
        } else {
            None
        };
        let mut values = LightValues {
            count: lights.len().clamp(1, MAX_LIGHTS),
            positions: [0.0; 4 * MAX_LIGHTS],
            colours: [0.0; 3 * MAX_LIGHTS],
            shadow_light: shadow.as_ref().map_or(-1, |s| s.light as i32),
            up: {
                let up = camera.rotation * Vector3::y();
                [up.x as f32, up.y as f32, up.z as f32]
            },
            ambient: frame.ambient,
        };
        for (i, light) in lights.iter().take(MAX_LIGHTS).enumerate() {
            let (position, colour) = eye_light(camera, light);
            values.positions[4 * i..4 * i + 4].copy_from_slice(&position);
            values.colours[3 * i..3 * i + 3].copy_from_slice(&colour);
        }
        let key_share = match (&shadow, ground) {
            (Some(view), Some(g)) => key_share(&lights, view.light, g, frame.ambient),
            _ => 0.0,
        };
        let ground = ground.map(|g| {
            let (u, v) = plane_axes(&g.normal);
            let f = |v: Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];
            GroundValues {
                origin: eye.point(&g.origin),
                axis_u: f(u),
                axis_v: f(v),
                normal: f(g.normal.into_inner()),
                extent: g.extent as f32,
                spacing: g.spacing as f32,
                colour: g.colour,
                line_colour: g.line_colour,
                grid: frame.looks.grid,
                key_share,
            }
        });

        // Only the anti-aliased picture is kept between frames (in the picture target).
        let setting = Setting {
            width,
            height,
            view: eye.view,
            projection,
            lights: values,
            background: frame.background,
            shadow: shadow.clone(),
            ground: ground.clone(),
            handle_radius: frame.handle_radius,
        };
        let meshes = &self.meshes;
        let region = self
            .kept
            .as_ref()
            .filter(|_| frame.looks.antialias)
            .and_then(|kept| {
                let radius = |o: &Object| meshes.get(&o.mesh).map_or(f64::INFINITY, |m| m.radius);
                changes::changed_region(kept, frame, &setting, &eye, radius, shadow.as_ref())
            });

        let info = |key: MeshKey| {
            let mesh = &meshes[&key];
            MeshInfo {
                radius: mesh.radius,
                sphere: mesh.sphere,
            }
        };
        // Depth cannot be read back on OpenGL ES; wireframes hide nothing; a frame drawn
        // again in a region draws the few bodies there.
        let culling = self.dialect == ShaderDialect::Gl33Core
            && !frame.wireframe
            && frame.objects.len() >= cull::MIN_BODIES
            && region.is_none();
        let shown = self.shown.of(frame.objects.len());
        self.batches.fill(
            frame,
            &eye,
            info,
            culling.then_some(Culling {
                view: &eye.view,
                projection: &projection,
                size: (width, height),
                shown,
            }),
            region.map(|region| Partial {
                view: &eye.view,
                projection: &projection,
                size: (width, height),
                region,
            }),
        );
        fill_lines(&mut self.lines, frame, &eye);
        let scene_lines = 0..self.lines.len();
        let gizmo = if frame.looks.gizmo {
            gizmo::gizmo(
                &camera.rotation,
                width,
                height,
                &mut self.batches,
                &mut self.lines,
            )
        } else {
            None
        };

        let mut shadow_stale = false;
        let mut shadow_region = None;
        if let Some(view) = &shadow {
            let shown = self.shadow_shown.of(frame.objects.len());
            let light = Culling {
                view: &view.view,
                projection: &view.projection,
                size: (view.size, view.size),
                shown,
            };
            self.casters.place(frame, &eye, &light, view.texel, info);
            let casters = &self.casters;
            shadow_region = self
                .shadow_drawn
                .as_ref()
                .filter(|drawn| drawn.clip == view.clip && drawn.size == view.size)
                .and_then(|drawn| {
                    changes::changed_casters(
                        (&drawn.casters, &drawn.reach),
                        (&casters.all, &casters.reach),
                        view.size,
                    )
                });
            shadow_stale = shadow_region.is_none_or(|r| !r.is_empty());
            let cull = self.dialect == ShaderDialect::Gl33Core
                && frame.objects.len() >= cull::MIN_BODIES
                && shadow_region.is_none();
            self.casters.batch(cull.then_some(&light), shadow_region);
        }
        self.prepared = Some(Prepared {
            width,
            height,
            view: eye.view,
            projection,
            per_pixel: eye.per_pixel,
            lights: values,
            background: frame.background,
            wireframe: frame.wireframe,
            opaque: frame.objects.iter().all(|o| o.colour[3] >= 1.0),
            shadow,
            shadow_stale,
            shadow_region,
            ground,
            antialias: frame.looks.antialias,
            smoothing,
            culling,
            lines: scene_lines,
            gizmo,
            region,
            keep: frame.looks.antialias.then(|| Kept {
                setting,
                frame: frame.clone(),
            }),
        });
        Ok(())
    }
}

/// The share of the light falling on `ground` (the sky's and each light's, a light's by its
/// angle to the ground at its origin and its mean colour) that light `key` brings, at most
/// [`MAX_GROUND_SHADOW`]: a shadow on the ground stays light enough to see the grid through.
fn key_share(
    lights: &[Light],
    key: usize,
    ground: &crate::render::frame::Ground,
    ambient: f32,
) -> f32 {
    let up = ground.normal.into_inner();
    let on_ground = |light: &Light| -> f64 {
        let (towards, colour) = match light {
            Light::Directional { direction, colour } => (-direction.into_inner(), colour),
            Light::Point { position, colour } => ((position - ground.origin).normalize(), colour),
        };
        let brightness = colour.iter().map(|c| f64::from(*c)).sum::<f64>() / 3.0;
        towards.dot(&up).max(0.0) * brightness
    };
    let total: f64 = lights.iter().map(on_ground).sum::<f64>() + 1.15 * f64::from(ambient);
    let key = lights.get(key).map_or(0.0, on_ground);
    if total > 0.0 {
        ((key / total) as f32).min(MAX_GROUND_SHADOW)
    } else {
        0.0
    }
}

/// A light as the shaders want it: eye-space position (w = 1) or unit direction towards the
/// light (w = 0), and its colour.
fn eye_light(camera: &crate::render::camera::Camera, light: &Light) -> ([f32; 4], [f32; 3]) {
    match light {
        Light::Directional { direction, colour } => {
            let towards: Vector3<f64> = -(camera.rotation * direction.into_inner());
            (
                [towards.x as f32, towards.y as f32, towards.z as f32, 0.0],
                *colour,
            )
        }
        Light::Point { position, colour } => {
            let p = camera.to_eye(position);
            ([p.x as f32, p.y as f32, p.z as f32, 1.0], *colour)
        }
    }
}
