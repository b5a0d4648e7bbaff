// Instanced meshes: bodies, handles, markers, arrowheads and the axis gizmo. With BALLS, solid
// balls as impostors: the instance places and scales the unit sphere, and the mesh is a square
// (corners from -1 to 1 in x and y) stretched over the ball's bounding box on the screen, in
// the plane touching the ball's front; the fragment shader finds the ball's surface on each
// pixel's ray. Two triangles a ball instead of a tessellated sphere.
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
#if BALLS
// The ball's centre and radius in eye space, and in the world (relative) for the shadow map.
flat out vec4 v_ball_eye;
flat out vec4 v_ball_world;

// The tangents of the angles (off the eye's axis, in the plane of the axis and one of x or y,
// seen from the eye) between which a ball at `side` (x or y) and `depth`, of radius `r`, lies.
vec2 tangents(float side, float depth, float r) {
    float towards = atan(side, depth);
    float spread = asin(min(r / length(vec2(side, depth)), 1.0));
    return vec2(tan(towards - spread), tan(towards + spread));
}

void main() {
    vec3 centre = (u_view * a_model3).xyz;
    float r = length(mat3(u_view) * a_model0.xyz);
    float depth = -centre.z;
    vec2 x = tangents(centre.x, depth, r);
    vec2 y = tangents(centre.y, depth, r);
    // The front plane, which the renderer keeps in front of the near clipping plane.
    float front = depth - r;
    vec2 corner = vec2(a_position.x < 0.0 ? x.x : x.y, a_position.y < 0.0 ? y.x : y.y);
    vec4 eye = vec4(corner * front, -front, 1.0);
    v_eye = eye.xyz;
    v_normal = vec3(0.0, 0.0, 1.0);
    v_shadow = vec4(0.0);
    v_ball_eye = vec4(centre, r);
    v_ball_world = vec4(a_model3.xyz, length(a_model0.xyz));
    v_colour = a_colour;
    v_highlight = a_highlight;
    gl_Position = u_projection * eye;
}
#else
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
#endif
