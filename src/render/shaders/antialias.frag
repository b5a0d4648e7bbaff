// Edge smoothing over the finished picture, for software GL where multisampling costs four
// times the drawing. A pixel whose neighbourhood has little contrast is copied. On an edge,
// the direction of the edge is estimated from the four diagonal neighbours' brightness, and
// the pixel is replaced by samples taken along the edge (two near, two farther, bilinear), so
// a staircase becomes a ramp of intermediate values. The farther samples are kept only when
// their average stays within the neighbourhood's range (otherwise they reached across another
// edge).
uniform sampler2D u_picture;
uniform vec2 u_texel;
out vec4 o_colour;

float brightness(vec4 c) {
    return dot(c.rgb, vec3(0.299, 0.587, 0.114));
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 centre = texelFetch(u_picture, p, 0);
    float m = brightness(centre);
    float nw = brightness(texelFetch(u_picture, p + ivec2(-1, 1), 0));
    float ne = brightness(texelFetch(u_picture, p + ivec2(1, 1), 0));
    float sw = brightness(texelFetch(u_picture, p + ivec2(-1, -1), 0));
    float se = brightness(texelFetch(u_picture, p + ivec2(1, -1), 0));
    float lo = min(m, min(min(nw, ne), min(sw, se)));
    float hi = max(m, max(max(nw, ne), max(sw, se)));
    if (hi - lo < max(0.03, 0.08 * hi)) {
        o_colour = centre;
        return;
    }
    // Across the brightness gradient is along the edge.
    vec2 along = vec2(-((nw + ne) - (sw + se)), (nw + sw) - (ne + se));
    float damping = max(0.03125 * (nw + ne + sw + se), 1.0 / 128.0);
    along = clamp(along / (min(abs(along.x), abs(along.y)) + damping), -4.0, 4.0) * u_texel;
    vec2 uv = gl_FragCoord.xy * u_texel;
    vec4 near = 0.5 * (texture(u_picture, uv - along / 6.0) + texture(u_picture, uv + along / 6.0));
    vec4 wide = 0.5 * near + 0.25 * (texture(u_picture, uv - 0.5 * along) + texture(u_picture, uv + 0.5 * along));
    float b = brightness(wide);
    o_colour = (b < lo || b > hi) ? near : wide;
}
