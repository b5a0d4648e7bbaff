// Outlines of highlighted bodies: the body's front faces, each vertex pushed out on the
// screen by the outline's width (pixels, in the instance's highlight alpha) away from the
// body's centre, and pushed back a little in depth. Where the body itself was drawn its own
// faces stay in front; around its silhouette a band of the outline's colour shows. Pushing
// along the direction from the centre, not the face normals, keeps the band closed at
// corners (the bodies are convex).
layout(location = 0) in vec3 a_position;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
layout(location = 7) in vec4 a_highlight;
uniform mat4 u_view;
uniform mat4 u_projection;
// Two over the picture's width and height: a pixel in normalized device coordinates.
uniform vec2 u_pixel;
flat out vec4 v_colour;

const float DEPTH_BIAS = 4e-4;

void main() {
    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);
    mat4 clip = u_projection * u_view * model;
    vec4 centre = clip * vec4(0.0, 0.0, 0.0, 1.0);
    vec4 p = clip * vec4(a_position, 1.0);
    vec2 away = (p.xy / p.w - centre.xy / centre.w) / u_pixel;
    float pixels = length(away);
    vec2 push = pixels > 1e-6 ? away / pixels * u_pixel : vec2(0.0);
    p.xy += push * a_highlight.a * p.w;
    p.z += DEPTH_BIAS * p.w;
    v_colour = vec4(a_highlight.rgb, 1.0);
    gl_Position = p;
}
