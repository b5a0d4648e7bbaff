// The ground's colour with grid lines (a minor line every `u_spacing`, a major one every five),
// each line about a pixel wide whatever the distance, lines fading where their cells shrink
// to a few pixels, and the whole ground fading into the background towards its edge.
//
// Shadows darken it by the share of the light reaching the flat ground that the key light
// brings (`u_key_share`, computed once per frame). Compiled with GRID and SHADOWS defined to
// 0 or 1.
uniform vec4 u_colour;
uniform vec4 u_line_colour;
uniform float u_spacing;
uniform float u_extent;
#if SHADOWS
uniform float u_key_share;
uniform highp sampler2DShadow u_shadow_map;
#endif
in vec2 v_plane;
in vec4 v_shadow;
out vec4 o_colour;

// How much of a line of cells of size 1 in `cell` (with screen derivative `width`) covers
// this pixel, faded for cells smaller than a few pixels.
float lines(vec2 cell, vec2 width) {
    vec2 distance = abs(fract(cell - 0.5) - 0.5) / max(width, vec2(1e-6));
    float line = 1.0 - min(min(distance.x, distance.y), 1.0);
    return line * (1.0 - smoothstep(0.12, 0.35, max(width.x, width.y)));
}

void main() {
    float reach = length(v_plane) / u_extent;
    vec3 colour = u_colour.rgb;
#if GRID
    vec2 cell = v_plane / u_spacing;
    vec2 width = fwidth(cell);
    float line = max(0.45 * lines(cell, width), lines(cell * 0.2, width * 0.2));
    colour = mix(colour, u_line_colour.rgb, line * u_line_colour.a);
#endif
#if SHADOWS
    vec3 p = v_shadow.xyz / v_shadow.w;
    vec3 inside = step(vec3(0.0), p) * step(p, vec3(1.0));
    float sun = mix(1.0, texture(u_shadow_map, clamp(p, 0.0, 1.0)), inside.x * inside.y * inside.z);
    colour *= 1.0 - u_key_share * (1.0 - sun);
#endif
    o_colour = vec4(colour, u_colour.a * (1.0 - smoothstep(0.45, 1.0, reach)));
}
