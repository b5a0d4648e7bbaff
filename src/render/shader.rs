//! The renderer's GLSL programs: one for shaded or flat-coloured instanced meshes and one for
//! coloured lines. The bodies are written once in the common subset of GLSL 3.30 core and
//! GLSL ES 3.00; only the version header differs.

use glow::HasContext;

/// Which GLSL dialect the context speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderDialect {
    /// Desktop OpenGL 3.3 core profile (EGL off-screen, GTK on GLX or EGL desktop GL).
    Gl33Core,
    /// OpenGL ES 3.0 (GTK when it picks GLES).
    Gles30,
}

impl ShaderDialect {
    fn header(self) -> &'static str {
        match self {
            ShaderDialect::Gl33Core => "#version 330 core\n",
            ShaderDialect::Gles30 => {
                "#version 300 es\nprecision highp float;\nprecision highp int;\n"
            }
        }
    }
}

/// The most lights the mesh shader evaluates; the GLSL arrays are declared this long.
pub const MAX_LIGHTS: usize = super::frame::Frame::MAX_LIGHTS;

/// Vertex attribute locations shared by the programs and the vertex array set-up.
pub mod attribute {
    pub const POSITION: u32 = 0;
    pub const NORMAL: u32 = 1;
    /// Four consecutive locations holding the columns of the instance's model-view matrix.
    pub const MODEL: u32 = 2;
    pub const INSTANCE_COLOUR: u32 = 6;
    /// Per-vertex colour of the line program.
    pub const LINE_COLOUR: u32 = 1;
}

const MESH_VERTEX: &str = r#"
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
layout(location = 6) in vec4 a_colour;
uniform mat4 u_projection;
uniform float u_depth_bias;
out vec3 v_normal;
out vec3 v_eye;
out vec4 v_colour;
void main() {
    // Instances carry their model-view matrix, composed on the CPU in double precision.
    mat4 model_view = mat4(a_model0, a_model1, a_model2, a_model3);
    vec4 eye = model_view * vec4(a_position, 1.0);
    v_eye = eye.xyz;
    // Models are rigid motions with uniform scale, so the upper 3x3 turns normals correctly
    // up to length, which the fragment shader restores.
    v_normal = mat3(model_view) * a_normal;
    v_colour = a_colour;
    gl_Position = u_projection * eye;
    gl_Position.z -= u_depth_bias * gl_Position.w;
}
"#;

const MESH_FRAGMENT: &str = r#"
uniform bool u_lit;
uniform int u_light_count;
uniform vec4 u_light_position[8];
uniform vec3 u_light_colour[8];
uniform float u_ambient;
in vec3 v_normal;
in vec3 v_eye;
in vec4 v_colour;
out vec4 o_colour;
void main() {
    if (!u_lit) {
        o_colour = v_colour;
        return;
    }
    vec3 n = normalize(v_normal);
    vec3 light = vec3(u_ambient);
    for (int i = 0; i < u_light_count; i++) {
        vec4 p = u_light_position[i];
        vec3 towards = p.w == 0.0 ? normalize(p.xyz) : normalize(p.xyz - v_eye);
        light += u_light_colour[i] * max(dot(n, towards), 0.0);
    }
    o_colour = vec4(min(v_colour.rgb * light, vec3(1.0)), v_colour.a);
}
"#;

const LINE_VERTEX: &str = r#"
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;
uniform mat4 u_view_projection;
out vec4 v_colour;
void main() {
    v_colour = a_colour;
    gl_Position = u_view_projection * vec4(a_position, 1.0);
}
"#;

const LINE_FRAGMENT: &str = r#"
in vec4 v_colour;
out vec4 o_colour;
void main() {
    o_colour = v_colour;
}
"#;

/// The instanced mesh program and its uniforms.
pub struct MeshProgram {
    pub program: glow::Program,
    pub projection: Option<glow::UniformLocation>,
    pub depth_bias: Option<glow::UniformLocation>,
    pub lit: Option<glow::UniformLocation>,
    pub light_count: Option<glow::UniformLocation>,
    pub light_position: Option<glow::UniformLocation>,
    pub light_colour: Option<glow::UniformLocation>,
    pub ambient: Option<glow::UniformLocation>,
}

impl MeshProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, MESH_VERTEX, MESH_FRAGMENT)?;
        let uniform = |name| gl.get_uniform_location(program, name);
        Ok(MeshProgram {
            program,
            projection: uniform("u_projection"),
            depth_bias: uniform("u_depth_bias"),
            lit: uniform("u_lit"),
            light_count: uniform("u_light_count"),
            light_position: uniform("u_light_position"),
            light_colour: uniform("u_light_colour"),
            ambient: uniform("u_ambient"),
        })
    }
}

/// The coloured-line program and its uniform.
pub struct LineProgram {
    pub program: glow::Program,
    pub view_projection: Option<glow::UniformLocation>,
}

impl LineProgram {
    /// Compiles and links the program.
    ///
    /// # Safety
    /// `gl` must be current on this thread.
    pub unsafe fn new(gl: &glow::Context, dialect: ShaderDialect) -> Result<Self, String> {
        let program = link(gl, dialect, LINE_VERTEX, LINE_FRAGMENT)?;
        Ok(LineProgram {
            program,
            view_projection: gl.get_uniform_location(program, "u_view_projection"),
        })
    }
}

unsafe fn link(
    gl: &glow::Context,
    dialect: ShaderDialect,
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
        gl.shader_source(shader, &format!("{}{}", dialect.header(), body));
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
    fn light_arrays_hold_max_lights() {
        for name in ["u_light_position", "u_light_colour"] {
            assert!(
                MESH_FRAGMENT.contains(&format!("{name}[{MAX_LIGHTS}];")),
                "{name}"
            );
        }
    }
}
