// Edge smoothing over the finished picture, for software GL where multisampling costs four
// times the drawing. On an edge (the pixel and its four diagonal neighbours differ enough in
// brightness) the direction of the edge is estimated from the diagonal neighbours, and the
// pixel becomes the mean of two bilinear samples taken along the edge on either side, so a
// staircase becomes a ramp of intermediate values. Elsewhere the pixel is copied, and so are
// the pixels of lines (links, vectors, trajectories), which their pass marks with alpha 0:
// smoothed, a line a pixel wide would fade into what is around it. Seven
// texture reads a pixel: a software rasteriser runs both sides of the branch, so fewer reads,
// not an early exit, is what makes it cheap.
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
    // Across the brightness gradient is along the edge.
    vec2 along = vec2(-((nw + ne) - (sw + se)), (nw + sw) - (ne + se));
    float damping = max(0.03125 * (nw + ne + sw + se), 1.0 / 128.0);
    along = clamp(along / (min(abs(along.x), abs(along.y)) + damping), -4.0, 4.0) * u_texel;
    vec2 uv = gl_FragCoord.xy * u_texel;
    vec4 smoothed = 0.5 * (texture(u_picture, uv - 0.25 * along) + texture(u_picture, uv + 0.25 * along));
    bool keep = hi - lo < max(0.03, 0.08 * hi) || centre.a < 0.5;
    o_colour = vec4(keep ? centre.rgb : smoothed.rgb, 1.0);
}
