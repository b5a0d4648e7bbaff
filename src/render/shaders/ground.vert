// The ground: a fan of triangles around its origin (vertex 0), reaching just past `u_extent`
// so the faded disc fits inside; no vertex buffer, the corners come from gl_VertexID.
uniform mat4 u_view;
uniform mat4 u_projection;
uniform mat4 u_shadow;
// The origin (world, relative to the frame's origin), the plane's two unit axes and normal.
uniform vec3 u_origin;
uniform vec3 u_axis_u;
uniform vec3 u_axis_v;
uniform vec3 u_normal;
uniform float u_extent;
uniform int u_sides;
uniform float u_normal_offset;
out vec2 v_plane;
out vec4 v_shadow;
void main() {
    vec2 corner = vec2(0.0);
    if (gl_VertexID > 0) {
        float angle = 6.28318530718 * float(gl_VertexID - 1) / float(u_sides);
        corner = vec2(cos(angle), sin(angle)) * (u_extent / cos(3.14159265359 / float(u_sides)));
    }
    vec3 world = u_origin + corner.x * u_axis_u + corner.y * u_axis_v;
    v_plane = corner;
    v_shadow = u_shadow * vec4(world + u_normal * u_normal_offset, 1.0);
    gl_Position = u_projection * (u_view * vec4(world, 1.0));
}
