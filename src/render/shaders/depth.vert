// Shadow casters seen from the key light: positions only.
layout(location = 0) in vec3 a_position;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
// World (relative) to the light's clip space.
uniform mat4 u_light;
void main() {
    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);
    gl_Position = u_light * (model * vec4(a_position, 1.0));
}
