// Key lights (the scene's, with shadows from one), a sky/ground hemisphere ambient term, a
// little specular, and a rim for highlighted bodies. Unlit draws (wireframes, outlines) take
// the instance colour as is.
//
// With BALLS, the fragment of a ball's impostor (see mesh.vert): the point where the pixel's
// ray meets the ball gives the normal, the shadow lookup and the depth; rays that miss it are
// discarded.
//
// Compiled once per light count, with or without shadows and for balls or meshes (LIGHTS,
// SHADOWS and BALLS are defined before this text), so the loop unrolls and nothing is
// computed for shadows that are off: a software rasteriser runs both sides of a branch.
uniform bool u_lit;
// Eye space: position (w = 1), or unit direction towards the light (w = 0).
uniform vec4 u_light_position[LIGHTS];
uniform vec3 u_light_colour[LIGHTS];
#if SHADOWS
// The light whose shadows are drawn.
uniform int u_shadow_light;
uniform highp sampler2DShadow u_shadow_map;
#endif
// The world's up direction in eye space, for the hemisphere term.
uniform vec3 u_up;
uniform float u_ambient;
in vec3 v_normal;
in vec3 v_eye;
in vec4 v_shadow;
flat in vec4 v_colour;
flat in vec4 v_highlight;
#if BALLS
uniform mat4 u_view;
uniform mat4 u_projection;
uniform mat4 u_shadow;
uniform float u_normal_offset;
flat in vec4 v_ball_eye;
flat in vec4 v_ball_world;
#endif
out vec4 o_colour;

const vec3 SKY = vec3(1.12, 1.12, 1.16);
const vec3 BOUNCE = vec3(0.62, 0.58, 0.55);
const float SPECULAR = 0.22;

void main() {
#if BALLS
    // The nearer of the ray's two meetings with the ball: |t e - c| = r.
    vec3 c = v_ball_eye.xyz;
    float a = dot(v_eye, v_eye);
    float b = dot(v_eye, c);
    float d = b * b - a * (dot(c, c) - v_ball_eye.w * v_ball_eye.w);
    if (d < 0.0) {
        discard;
    }
    vec3 at = v_eye * ((b - sqrt(d)) / a);
    vec3 n = (at - c) / v_ball_eye.w;
    vec4 clip = u_projection * vec4(at, 1.0);
    gl_FragDepth = 0.5 + 0.5 * clip.z / clip.w;
    // The view is a rotation with a uniform scale: its transpose turns eye directions back
    // into the world's, up to length.
    vec3 world_normal = normalize(transpose(mat3(u_view)) * n);
    vec3 world = v_ball_world.xyz + world_normal * (v_ball_world.w + u_normal_offset);
    vec4 shadow_at = u_shadow * vec4(world, 1.0);
    vec3 view = normalize(-at);
#else
    vec3 n = normalize(v_normal);
    vec3 view = normalize(-v_eye);
    vec4 shadow_at = v_shadow;
    vec3 at = v_eye;
#endif
    if (!u_lit) {
        o_colour = v_colour;
        return;
    }
    vec3 light = u_ambient * mix(BOUNCE, SKY, 0.5 + 0.5 * dot(n, u_up));
    vec3 shine = vec3(0.0);
#if SHADOWS
    // 1 where the shadow map sees this point, 0 where something is in front of it; the
    // comparison with linear filtering blends the four nearest texels. Outside the map, lit.
    vec3 p = shadow_at.xyz / shadow_at.w;
    vec3 inside = step(vec3(0.0), p) * step(p, vec3(1.0));
    float sun = mix(1.0, texture(u_shadow_map, clamp(p, 0.0, 1.0)), inside.x * inside.y * inside.z);
#endif
    for (int i = 0; i < LIGHTS; i++) {
        vec4 l = u_light_position[i];
        vec3 towards = l.w == 0.0 ? l.xyz : normalize(l.xyz - at);
#if SHADOWS
        float lit = i == u_shadow_light ? sun : 1.0;
#else
        float lit = 1.0;
#endif
        float lambert = max(dot(n, towards), 0.0);
        light += u_light_colour[i] * (lambert * lit);
        // Blinn-Phong with exponent 48, by squaring (cheaper than pow on a CPU).
        float f = max(dot(n, normalize(towards + view)), 0.0);
        float f2 = f * f;
        float f4 = f2 * f2;
        float f16 = f4 * f4 * f4 * f4;
        float f48 = f16 * f16 * f16;
        shine += u_light_colour[i] * (SPECULAR * lit * step(0.0001, lambert) * f48);
    }
    vec3 colour = v_colour.rgb * light + shine;
    float rim = 1.0 - max(dot(n, view), 0.0);
    colour = mix(colour, v_highlight.rgb, v_highlight.a * rim * rim);
    o_colour = vec4(min(colour, vec3(1.0)), v_colour.a);
}
