// Instanced meshes: bodies, handles, markers, arrowheads and the axis gizmo.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
// The instance's model matrix (columns), in world coordinates relative to the frame's origin.
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
layout(location = 6) in vec4 a_colour;
// Rim colour (rgb) and strength (a) of a selected or hovered body.
layout(location = 7) in vec4 a_highlight;
uniform mat4 u_view;
uniform mat4 u_projection;
// World (relative) to shadow-map texture coordinates and depth.
uniform mat4 u_shadow;
// How far (world units) the shadow lookup moves off the surface along its normal.
uniform float u_normal_offset;
out vec3 v_normal;
out vec3 v_eye;
out vec4 v_shadow;
flat out vec4 v_colour;
flat out vec4 v_highlight;
void main() {
    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);
    vec4 world = model * vec4(a_position, 1.0);
    vec3 world_normal = mat3(model) * a_normal;
    vec4 eye = u_view * world;
    v_eye = eye.xyz;
    // Models and the view are rigid motions with uniform scale: the upper 3x3 turns normals
    // correctly up to length, which the fragment shader restores.
    v_normal = mat3(u_view) * world_normal;
    v_shadow = u_shadow * (world + vec4(normalize(world_normal) * u_normal_offset, 0.0));
    v_colour = a_colour;
    v_highlight = a_highlight;
    gl_Position = u_projection * eye;
}
