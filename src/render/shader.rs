//! The renderer's GLSL programs. Their sources are under `src/render/shaders/`, written once
//! in the common subset of GLSL 3.30 core and GLSL ES 3.00; only the version header differs.
//! The mesh and ground programs come in variants (number of lights, shadows, grid) chosen by
//! `#define`s, compiled the first time a frame needs them: on a software rasteriser a loop
//! over a uniform count, or a branch not taken, costs as much as running it.
//!
//! - [`MeshProgram`]: instanced meshes, lit (key lights with one light's shadows, a sky and
//!   ground hemisphere, a little specular, a rim on highlighted bodies) or flat-coloured;
//!   its ball variant draws solid balls as impostors, lit the same way;
//! - [`DepthProgram`]: shadow casters seen from the key light, depth only;
//! - [`OutlineProgram`]: outlines of selected and hovered bodies;
//! - [`HandleProgram`]: handles, as discs shaded like spheres;
//! - [`LineProgram`]: coloured lines;
//! - [`GroundProgram`]: the ground plane with its grid, fading out, receiving shadows;
//! - [`AntialiasProgram`]: edge smoothing over the finished picture.

use glow::HasContext;
use std::collections::HashMap;

/// Which GLSL dialect the context speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderDialect {
    /// Desktop OpenGL 3.3 core profile (EGL off-screen, GTK on GLX or EGL desktop GL).
    Gl33Core,
    /// OpenGL ES 3.0 (GTK when it picks GLES).
    Gles30,
}

impl ShaderDialect {
    pub fn header(self) -> &'static str {
        match self {
            ShaderDialect::Gl33Core => "#version 330 core\n",
            ShaderDialect::Gles30 => {
                "#version 300 es\nprecision highp float;\nprecision highp int;\n"
            }
        }
    }
}

/// The most lights the shaders evaluate; the GLSL arrays are declared this long.
pub const MAX_LIGHTS: usize = super::frame::Frame::MAX_LIGHTS;

/// Vertex attribute locations shared by the programs and the vertex array set-up.
pub mod attribute {
    pub const POSITION: u32 = 0;
    pub const NORMAL: u32 = 1;
    /// Four consecutive locations holding the columns of the instance's model matrix.
    pub const MODEL: u32 = 2;
    pub const INSTANCE_COLOUR: u32 = 6;
    pub const HIGHLIGHT: u32 = 7;
    /// Per-vertex colour of the line program.
    pub const LINE_COLOUR: u32 = 1;
}

/// Texture units the programs sample.
pub mod unit {
    /// The shadow map (mesh and ground programs).
    pub const SHADOW_MAP: u32 = 0;
    /// The finished picture (anti-aliasing).
    pub const PICTURE: u32 = 1;
}

const MESH_VERTEX: &str = include_str!("shaders/mesh.vert");
const MESH_FRAGMENT: &str = include_str!("shaders/mesh.frag");
const DEPTH_VERTEX: &str = include_str!("shaders/depth.vert");
const DEPTH_FRAGMENT: &str = include_str!("shaders/depth.frag");
const LINE_VERTEX: &str = include_str!("shaders/line.vert");
const LINE_FRAGMENT: &str = include_str!("shaders/line.frag");
const GROUND_VERTEX: &str = include_str!("shaders/ground.vert");
const GROUND_FRAGMENT: &str = include_str!("shaders/ground.frag");
const HANDLE_VERTEX: &str = include_str!("shaders/handle.vert");
const HANDLE_FRAGMENT: &str = include_str!("shaders/handle.frag");
const OUTLINE_VERTEX: &str = include_str!("shaders/outline.vert");
const OUTLINE_FRAGMENT: &str = include_str!("shaders/outline.frag");
const SCREEN_VERTEX: &str = include_str!("shaders/screen.vert");
const ANTIALIAS_FRAGMENT: &str = include_str!("shaders/antialias.frag");

type Location = Option<glow::UniformLocation>;

/// Which mesh program: how many lights, whether one casts shadows, and whether it draws
/// meshes or balls (impostors: a square over each ball's outline, the sphere found per pixel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MeshVariant {
    /// 1 to [`MAX_LIGHTS`].
    pub lights: usize,
    pub shadows: bool,
    pub balls: bool,
}

/// The instanced mesh program and its uniforms.
pub struct MeshProgram {
    pub program: glow::Program,
    pub view: Location,
    pub projection: Location,
    pub shadow: Location,
    pub normal_offset: Location,
    pub lit: Location,
    pub light_position: Location,
    pub light_colour: Location,
    pub shadow_light: Location,
    pub up: Location,
    pub ambient: Location,
}

impl MeshProgram {
    /// Compiles and links the program, with its shadow map on [`unit::SHADOW_MAP`].
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(
        gl: &glow::Context,
        dialect: ShaderDialect,
        variant: MeshVariant,
    ) -> Result<Self, String> {
        let defines = format!(
            "#define LIGHTS {}\n#define SHADOWS {}\n#define BALLS {}\n",
            variant.lights.clamp(1, MAX_LIGHTS),
            u8::from(variant.shadows),
            u8::from(variant.balls)
        );
        let program = link(gl, dialect, &defines, MESH_VERTEX, MESH_FRAGMENT)?;
        let uniform = |name| gl.get_uniform_location(program, name);
        gl.use_program(Some(program));
        gl.uniform_1_i32(uniform("u_shadow_map").as_ref(), unit::SHADOW_MAP as i32);
        gl.use_program(None);
        Ok(MeshProgram {
            program,
            view: uniform("u_view"),
            projection: uniform("u_projection"),
            shadow: uniform("u_shadow"),
            normal_offset: uniform("u_normal_offset"),
            lit: uniform("u_lit"),
            light_position: uniform("u_light_position"),
            light_colour: uniform("u_light_colour"),
            shadow_light: uniform("u_shadow_light"),
            up: uniform("u_up"),
            ambient: uniform("u_ambient"),
        })
    }
}

/// The shadow casters' depth program.
pub struct DepthProgram {
    pub program: glow::Program,
    pub light: Location,
}

impl DepthProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, "", DEPTH_VERTEX, DEPTH_FRAGMENT)?;
        Ok(DepthProgram {
            program,
            light: gl.get_uniform_location(program, "u_light"),
        })
    }
}

/// The outline program: highlighted bodies' back faces pushed out on the screen.
pub struct OutlineProgram {
    pub program: glow::Program,
    pub view: Location,
    pub projection: Location,
    pub pixel: Location,
}

impl OutlineProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, "", OUTLINE_VERTEX, OUTLINE_FRAGMENT)?;
        let uniform = |name| gl.get_uniform_location(program, name);
        Ok(OutlineProgram {
            program,
            view: uniform("u_view"),
            projection: uniform("u_projection"),
            pixel: uniform("u_pixel"),
        })
    }
}

/// The handle program: discs facing the eye shaded as spheres.
pub struct HandleProgram {
    pub program: glow::Program,
    pub view: Location,
    pub projection: Location,
    pub per_pixel: Location,
}

impl HandleProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, "", HANDLE_VERTEX, HANDLE_FRAGMENT)?;
        let uniform = |name| gl.get_uniform_location(program, name);
        Ok(HandleProgram {
            program,
            view: uniform("u_view"),
            projection: uniform("u_projection"),
            per_pixel: uniform("u_per_pixel"),
        })
    }
}

/// The coloured-line program and its uniform.
pub struct LineProgram {
    pub program: glow::Program,
    pub view_projection: Location,
}

impl LineProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, "", LINE_VERTEX, LINE_FRAGMENT)?;
        Ok(LineProgram {
            program,
            view_projection: gl.get_uniform_location(program, "u_view_projection"),
        })
    }
}

/// Which ground program: with grid lines, with shadows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GroundVariant {
    pub grid: bool,
    pub shadows: bool,
}

/// The ground program and its uniforms.
pub struct GroundProgram {
    pub program: glow::Program,
    pub view: Location,
    pub projection: Location,
    pub shadow: Location,
    pub origin: Location,
    pub axis_u: Location,
    pub axis_v: Location,
    pub normal: Location,
    pub extent: Location,
    pub sides: Location,
    pub normal_offset: Location,
    pub colour: Location,
    pub line_colour: Location,
    pub spacing: Location,
    pub key_share: Location,
}

impl GroundProgram {
    /// Compiles and links the program, with its shadow map on [`unit::SHADOW_MAP`].
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(
        gl: &glow::Context,
        dialect: ShaderDialect,
        variant: GroundVariant,
    ) -> Result<Self, String> {
        let defines = format!(
            "#define GRID {}\n#define SHADOWS {}\n",
            u8::from(variant.grid),
            u8::from(variant.shadows)
        );
        let program = link(gl, dialect, &defines, GROUND_VERTEX, GROUND_FRAGMENT)?;
        let uniform = |name| gl.get_uniform_location(program, name);
        gl.use_program(Some(program));
        gl.uniform_1_i32(uniform("u_shadow_map").as_ref(), unit::SHADOW_MAP as i32);
        gl.use_program(None);
        Ok(GroundProgram {
            program,
            view: uniform("u_view"),
            projection: uniform("u_projection"),
            shadow: uniform("u_shadow"),
            origin: uniform("u_origin"),
            axis_u: uniform("u_axis_u"),
            axis_v: uniform("u_axis_v"),
            normal: uniform("u_normal"),
            extent: uniform("u_extent"),
            sides: uniform("u_sides"),
            normal_offset: uniform("u_normal_offset"),
            colour: uniform("u_colour"),
            line_colour: uniform("u_line_colour"),
            spacing: uniform("u_spacing"),
            key_share: uniform("u_key_share"),
        })
    }
}

/// The anti-aliasing program and its uniforms.
pub struct AntialiasProgram {
    pub program: glow::Program,
    pub picture: Location,
    pub texel: Location,
}

impl AntialiasProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, "", SCREEN_VERTEX, ANTIALIAS_FRAGMENT)?;
        let uniform = |name| gl.get_uniform_location(program, name);
        gl.use_program(Some(program));
        gl.uniform_1_i32(uniform("u_picture").as_ref(), unit::PICTURE as i32);
        gl.use_program(None);
        Ok(AntialiasProgram {
            program,
            picture: uniform("u_picture"),
            texel: uniform("u_texel"),
        })
    }
}

/// Every program of the renderer; the variants are compiled when first asked for.
pub struct Programs {
    dialect: ShaderDialect,
    mesh: HashMap<MeshVariant, MeshProgram>,
    ground: HashMap<GroundVariant, GroundProgram>,
    pub depth: DepthProgram,
    pub outline: OutlineProgram,
    pub handle: HandleProgram,
    pub line: LineProgram,
    pub antialias: AntialiasProgram,
}

impl Programs {
    /// Compiles and links the programs that have no variants, and checks that the mesh and
    /// ground programs compile (the simplest variant of each).
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let mut programs = Programs {
            dialect,
            mesh: HashMap::new(),
            ground: HashMap::new(),
            depth: DepthProgram::new(gl, dialect)?,
            outline: OutlineProgram::new(gl, dialect)?,
            handle: HandleProgram::new(gl, dialect)?,
            line: LineProgram::new(gl, dialect)?,
            antialias: AntialiasProgram::new(gl, dialect)?,
        };
        programs.prepare_mesh(
            gl,
            MeshVariant {
                lights: 1,
                shadows: false,
                balls: false,
            },
        )?;
        programs.prepare_ground(
            gl,
            GroundVariant {
                grid: false,
                shadows: false,
            },
        )?;
        Ok(programs)
    }

    /// Compiles the mesh program `variant` unless it was.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn prepare_mesh(
        &mut self,
        gl: &glow::Context,
        variant: MeshVariant,
    ) -> Result<(), String> {
        if !self.mesh.contains_key(&variant) {
            let program = MeshProgram::new(gl, self.dialect, variant)?;
            self.mesh.insert(variant, program);
        }
        Ok(())
    }

    /// Compiles the ground program `variant` unless it was.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn prepare_ground(
        &mut self,
        gl: &glow::Context,
        variant: GroundVariant,
    ) -> Result<(), String> {
        if !self.ground.contains_key(&variant) {
            let program = GroundProgram::new(gl, self.dialect, variant)?;
            self.ground.insert(variant, program);
        }
        Ok(())
    }

    /// The mesh program `variant`, which [`Programs::prepare_mesh`] compiled.
    pub fn mesh(&self, variant: MeshVariant) -> &MeshProgram {
        &self.mesh[&variant]
    }

    /// The ground program `variant`, which [`Programs::prepare_ground`] compiled.
    pub fn ground(&self, variant: GroundVariant) -> &GroundProgram {
        &self.ground[&variant]
    }

    /// Deletes every program.
    ///
    /// # Safety
    /// `gl` must be current on this thread and the programs unused after.
    pub unsafe fn delete(&self, gl: &glow::Context) {
        let variants = self.mesh.values().map(|p| p.program);
        let grounds = self.ground.values().map(|p| p.program);
        for program in variants.chain(grounds).chain([
            self.depth.program,
            self.outline.program,
            self.handle.program,
            self.line.program,
            self.antialias.program,
        ]) {
            gl.delete_program(program);
        }
    }
}

unsafe fn link(
    gl: &glow::Context,
    dialect: ShaderDialect,
    defines: &str,
    vertex: &str,
    fragment: &str,
) -> Result<glow::Program, String> {
    let program = gl.create_program()?;
    let mut shaders = Vec::new();
    for (kind, body, name) in [
        (glow::VERTEX_SHADER, vertex, "vertex"),
        (glow::FRAGMENT_SHADER, fragment, "fragment"),
    ] {
        let shader = gl.create_shader(kind)?;
        gl.shader_source(shader, &format!("{}{defines}{body}", dialect.header()));
        gl.compile_shader(shader);
        if !gl.get_shader_compile_status(shader) {
            let log = gl.get_shader_info_log(shader);
            gl.delete_shader(shader);
            gl.delete_program(program);
            return Err(format!("{name} shader does not compile: {log}"));
        }
        gl.attach_shader(program, shader);
        shaders.push(shader);
    }
    gl.link_program(program);
    let linked = gl.get_program_link_status(program);
    for shader in shaders {
        gl.detach_shader(program, shader);
        gl.delete_shader(shader);
    }
    if !linked {
        let log = gl.get_program_info_log(program);
        gl.delete_program(program);
        return Err(format!("shader program does not link: {log}"));
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variant_programs_size_their_light_arrays_by_the_define() {
        for name in ["u_light_position", "u_light_colour"] {
            assert!(
                MESH_FRAGMENT.contains(&format!("{name}[LIGHTS];")),
                "{name}"
            );
        }
        for source in [MESH_FRAGMENT, GROUND_FRAGMENT] {
            assert!(source.contains("#if SHADOWS"));
        }
    }
}
