// Handles as discs facing the eye, shaded as little spheres: two triangles each instead of a
// tessellated sphere, since a scene may show thousands. The instance's model matrix places
// and scales the unit sphere; the corner (a_position.xy, from −1 to 1) spans its outline,
// grown by a pixel so the edge can fade out smoothly.
layout(location = 0) in vec3 a_position;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
layout(location = 6) in vec4 a_colour;
uniform mat4 u_view;
uniform mat4 u_projection;
// Eye units per pixel at unit depth.
uniform float u_per_pixel;
out vec2 v_disc;
flat out vec4 v_colour;
flat out float v_pixels;
void main() {
    vec4 centre = u_view * a_model3;
    float radius = length(mat3(u_view) * a_model0.xyz);
    // The disc's radius in pixels, and one pixel more for the fading edge.
    v_pixels = radius / (u_per_pixel * max(-centre.z, 1e-6));
    float grow = 1.0 + 1.0 / max(v_pixels, 1.0);
    v_disc = a_position.xy * grow;
    v_colour = a_colour;
    gl_Position = u_projection * (centre + vec4(v_disc * radius, 0.0, 0.0));
}
