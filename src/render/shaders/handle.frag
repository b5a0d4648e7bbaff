// A lit sphere seen head on: the normal from the position on the disc, a light from the
// upper left in front, a dark rim so a handle shows on any background, and an edge that
// fades over a pixel.
in vec2 v_disc;
flat in vec4 v_colour;
flat in float v_pixels;
out vec4 o_colour;

const vec3 LIGHT = vec3(-0.35, 0.55, 0.76);

void main() {
    float r = length(v_disc);
    vec3 n = vec3(v_disc, sqrt(max(1.0 - r * r, 0.0)));
    float light = 0.45 + 0.6 * max(dot(n, normalize(LIGHT)), 0.0);
    vec3 colour = min(v_colour.rgb * light, vec3(1.0));
    colour = mix(colour, colour * 0.45, smoothstep(0.72, 1.0, r));
    float coverage = clamp((1.0 - r) * v_pixels + 0.5, 0.0, 1.0);
    o_colour = vec4(colour, v_colour.a * coverage);
}
