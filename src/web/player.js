// Asgard's web player: plays the computed motion of each animation on a page written by
// `asgard export --format html`, with WebGL, needing nothing from the network.
//
// Each <figure class="asgard-player"> holds a canvas, the controls and a JSON block (see
// src/web/animation.rs): the motion as a glTF 2.0 asset (one node per body with a child per
// part, LINEAR translation and rotation channels over the sample times) and, sampled at the
// same times, the view, the lights and the links' end points. Nothing is simulated here: a
// picture at time t interpolates the samples around t, as the host's playback interpolates
// the simulator's tracks. Shading is the renderer's (src/render/shader.rs): Lambert plus
// ambient, lights in eye space, the default light shining from the eye.
//
// The state of each player is on its figure (data-time, data-playing, data-rate, data-loop)
// and in window.asgardPlayers[i] (play, pause, seek, setRate, setLoop, time, playing), so
// that scripts and tests can read and drive it.
(function () {
  "use strict";

  // ---- data -----------------------------------------------------------------------------

  function bytesOf(base64) {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  // Little-endian 32-bit floats, as Rust wrote them.
  function floatsOf(base64) {
    const bytes = bytesOf(base64);
    const view = new DataView(bytes.buffer);
    const out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
    return out;
  }

  const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };

  // The values of glTF accessor `index` (FLOAT or UNSIGNED_INT) in `buffer`.
  function accessor(gltf, buffer, index) {
    const a = gltf.accessors[index];
    const view = gltf.bufferViews[a.bufferView];
    const start = (view.byteOffset || 0) + (a.byteOffset || 0);
    const n = a.count * COMPONENTS[a.type];
    const data = new DataView(buffer.buffer, buffer.byteOffset + start, 4 * n);
    const out = a.componentType === 5125 ? new Uint32Array(n) : new Float32Array(n);
    for (let i = 0; i < n; i++) {
      out[i] = a.componentType === 5125 ? data.getUint32(4 * i, true) : data.getFloat32(4 * i, true);
    }
    return out;
  }

  // The bodies of the glTF scene: per body its parts (mesh, offset, colour), its rest pose
  // and, when animated, its translation and rotation samples.
  function bodiesOf(gltf, buffer) {
    const channels = {};
    for (const animation of gltf.animations || []) {
      for (const channel of animation.channels) {
        const sampler = animation.samplers[channel.sampler];
        const node = (channels[channel.target.node] = channels[channel.target.node] || {});
        node[channel.target.path] = accessor(gltf, buffer, sampler.output);
      }
    }
    const scene = gltf.scenes[gltf.scene || 0];
    return scene.nodes.map((index) => {
      const node = gltf.nodes[index];
      const parts = (node.children || []).map((child) => {
        const part = gltf.nodes[child];
        const primitive = gltf.meshes[part.mesh].primitives[0];
        const material = gltf.materials[primitive.material];
        return {
          mesh: primitive,
          offset: part.translation || [0, 0, 0],
          colour: material.pbrMetallicRoughness.baseColorFactor,
        };
      });
      const animated = channels[index] || {};
      return {
        parts: parts,
        rest: { translation: node.translation || [0, 0, 0], rotation: node.rotation || [0, 0, 0, 1] },
        translations: animated.translation || null,
        rotations: animated.rotation || null,
      };
    });
  }

  // ---- small linear algebra (column-major 4x4 matrices as plain arrays) ---------------

  function multiply(a, b) {
    const out = new Array(16);
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 4; r++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) sum += a[4 * k + r] * b[4 * c + k];
        out[4 * c + r] = sum;
      }
    }
    return out;
  }

  // The rigid motion: rotate by unit quaternion q = [x, y, z, w], then move by t.
  function rigid(t, q) {
    const [x, y, z, w] = q;
    return [
      1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
      2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
      2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
      t[0], t[1], t[2], 1,
    ];
  }

  function translation(t) {
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, t[0], t[1], t[2], 1];
  }

  function scaling(s) {
    return [s, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0, 0, 0, 0, 1];
  }

  function transform(m, p, w) {
    return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r] * w);
  }

  function perspective(fovY, aspect, near, far) {
    const f = 1 / Math.tan(fovY / 2);
    return [
      f / aspect, 0, 0, 0,
      0, f, 0, 0,
      0, 0, (far + near) / (near - far), -1,
      0, 0, (2 * far * near) / (near - far), 0,
    ];
  }

  function normalise(v) {
    const n = Math.hypot.apply(null, v) || 1;
    return v.map((x) => x / n);
  }

  function quaternionMultiply(a, b) {
    const [ax, ay, az, aw] = a;
    const [bx, by, bz, bw] = b;
    return [
      aw * bx + ax * bw + ay * bz - az * by,
      aw * by - ax * bz + ay * bw + az * bx,
      aw * bz + ax * by - ay * bx + az * bw,
      aw * bw - ax * bx - ay * by - az * bz,
    ];
  }

  // The shortest rotation taking unit vector a to unit vector b.
  function rotationBetween(a, b) {
    const axis = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return normalise([axis[0], axis[1], axis[2], 1 + dot]);
  }

  // Linear interpolation of n values at `at` and `at + n` of `values`, weight f on the second.
  function lerp(values, n, i, j, f) {
    const out = new Array(n);
    for (let k = 0; k < n; k++) out[k] = values[i * n + k] * (1 - f) + values[j * n + k] * f;
    return out;
  }

  // Interpolated unit quaternion between samples i and j (normalised linear: the samples are
  // close and kept on one side by the exporter).
  function nlerp(values, i, j, f) {
    return normalise(lerp(values, 4, i, j, f));
  }

  // ---- drawing ----------------------------------------------------------------------------

  const MESH_VERTEX = `
    attribute vec3 a_position;
    attribute vec3 a_normal;
    uniform mat4 u_model_view;
    uniform mat4 u_projection;
    varying vec3 v_normal;
    varying vec3 v_eye;
    void main() {
      vec4 eye = u_model_view * vec4(a_position, 1.0);
      v_eye = eye.xyz;
      v_normal = mat3(u_model_view[0].xyz, u_model_view[1].xyz, u_model_view[2].xyz) * a_normal;
      gl_Position = u_projection * eye;
    }`;

  const MESH_FRAGMENT = `
    precision highp float;
    uniform vec4 u_colour;
    uniform int u_light_count;
    uniform vec4 u_light_position[8];
    uniform vec3 u_light_colour[8];
    uniform float u_ambient;
    varying vec3 v_normal;
    varying vec3 v_eye;
    void main() {
      vec3 n = normalize(v_normal);
      vec3 light = vec3(u_ambient);
      for (int i = 0; i < 8; i++) {
        if (i >= u_light_count) break;
        vec4 p = u_light_position[i];
        vec3 towards = p.w == 0.0 ? normalize(p.xyz) : normalize(p.xyz - v_eye);
        light += u_light_colour[i] * max(dot(n, towards), 0.0);
      }
      gl_FragColor = vec4(min(u_colour.rgb * light, vec3(1.0)), u_colour.a);
    }`;

  const LINE_VERTEX = `
    attribute vec3 a_position;
    uniform mat4 u_view_projection;
    void main() { gl_Position = u_view_projection * vec4(a_position, 1.0); }`;

  const LINE_FRAGMENT = `
    precision mediump float;
    uniform vec4 u_colour;
    void main() { gl_FragColor = u_colour; }`;

  function program(gl, vertex, fragment) {
    const shader = (type, source) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, source);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, shader(gl.VERTEX_SHADER, vertex));
    gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fragment));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
    const uniforms = {};
    const count = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
    for (let i = 0; i < count; i++) {
      const name = gl.getActiveUniform(p, i).name.replace(/\[0\]$/, "");
      uniforms[name] = gl.getUniformLocation(p, name);
    }
    return { program: p, uniforms: uniforms, position: gl.getAttribLocation(p, "a_position"),
             normal: gl.getAttribLocation(p, "a_normal") };
  }

  // One animation's pictures.
  class Scene {
    constructor(canvas, data) {
      const gl = canvas.getContext("webgl2", { antialias: true }) ||
        canvas.getContext("webgl", { antialias: true });
      if (!gl) throw new Error("this browser cannot draw WebGL");
      // The meshes have 32-bit indices: WebGL 2 has them, WebGL 1 needs the extension.
      const webgl2 = window.WebGL2RenderingContext && gl instanceof window.WebGL2RenderingContext;
      if (!webgl2 && !gl.getExtension("OES_element_index_uint")) {
        throw new Error("this browser's WebGL lacks 32-bit indices");
      }
      this.gl = gl;
      this.data = data;
      const gltf = data.gltf;
      const buffer = bytesOf(data.buffer);
      this.bodies = bodiesOf(gltf, buffer);
      this.mesh = program(gl, MESH_VERTEX, MESH_FRAGMENT);
      this.line = program(gl, LINE_VERTEX, LINE_FRAGMENT);
      this.meshes = new Map();
      for (const body of this.bodies) {
        for (const part of body.parts) {
          if (!this.meshes.has(part.mesh)) this.meshes.set(part.mesh, this.upload(gltf, buffer, part.mesh));
        }
      }
      this.times = floatsOf(data.times);
      this.cameras = floatsOf(data.cameras.samples);
      this.lights = floatsOf(data.lights.samples);
      this.lines = floatsOf(data.links.samples);
      this.lineBuffer = gl.createBuffer();
    }

    upload(gltf, buffer, primitive) {
      const gl = this.gl;
      const array = (target, values) => {
        const b = gl.createBuffer();
        gl.bindBuffer(target, b);
        gl.bufferData(target, values, gl.STATIC_DRAW);
        return b;
      };
      const indices = accessor(gltf, buffer, primitive.indices);
      return {
        position: array(gl.ARRAY_BUFFER, accessor(gltf, buffer, primitive.attributes.POSITION)),
        normal: array(gl.ARRAY_BUFFER, accessor(gltf, buffer, primitive.attributes.NORMAL)),
        indices: array(gl.ELEMENT_ARRAY_BUFFER, indices),
        count: indices.length,
      };
    }

    // The samples around `time`: indices i, j and the weight of j.
    bracket(time) {
      const times = this.times;
      const last = times.length - 1;
      if (last <= 0 || time <= times[0]) return [0, 0, 0];
      if (time >= times[last]) return [last, last, 0];
      let lo = 0;
      let hi = last;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (times[mid] <= time) lo = mid;
        else hi = mid;
      }
      return [lo, hi, (time - times[lo]) / (times[hi] - times[lo])];
    }

    // The sampled camera at `time`: { translation, rotation, scale, centre }.
    sceneCamera(time) {
      const samples = this.data.cameras.count;
      const [i, j, f] = samples > 1 ? this.bracket(time) : [0, 0, 0];
      const c = this.cameras;
      const pick = (offset, n) => [0, 1, 2, 3].slice(0, n).map((k) =>
        c[11 * i + offset + k] * (1 - f) + c[11 * j + offset + k] * f);
      return {
        translation: pick(0, 3),
        rotation: normalise(pick(3, 4)),
        scale: pick(7, 1)[0],
        centre: pick(8, 3),
      };
    }

    draw(time, camera) {
      const gl = this.gl;
      const data = this.data;
      const canvas = gl.canvas;
      gl.viewport(0, 0, canvas.width, canvas.height);
      const [r, g, b] = data.background;
      gl.clearColor(r, g, b, 1);
      gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
      gl.enable(gl.DEPTH_TEST);

      const view = multiply(
        multiply(rigid(camera.translation, camera.rotation), scaling(camera.scale)),
        translation(camera.centre.map((x) => -x)));
      const [near, far] = this.clipRange(view, camera.scale);
      const projection = perspective(data.fov, canvas.width / canvas.height, near, far);
      const [i, j, f] = this.bracket(time);

      // Meshes: opaque parts first, then translucent ones blended over them.
      const m = this.mesh;
      gl.useProgram(m.program);
      gl.uniformMatrix4fv(m.uniforms.u_projection, false, new Float32Array(projection));
      gl.uniform1f(m.uniforms.u_ambient, data.ambient);
      this.setLights(view, time);
      const draws = [];
      for (const body of this.bodies) {
        const t = body.translations ? lerp(body.translations, 3, i, j, f) : body.rest.translation;
        const q = body.rotations ? nlerp(body.rotations, i, j, f) : body.rest.rotation;
        const pose = multiply(view, rigid(t, q));
        for (const part of body.parts) draws.push([multiply(pose, translation(part.offset)), part]);
      }
      for (const translucent of [false, true]) {
        if (translucent) {
          gl.enable(gl.BLEND);
          gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
          gl.depthMask(false);
        }
        for (const [modelView, part] of draws) {
          if ((part.colour[3] < 1) !== translucent) continue;
          const mesh = this.meshes.get(part.mesh);
          gl.uniformMatrix4fv(m.uniforms.u_model_view, false, new Float32Array(modelView));
          gl.uniform4fv(m.uniforms.u_colour, part.colour);
          gl.bindBuffer(gl.ARRAY_BUFFER, mesh.position);
          gl.enableVertexAttribArray(m.position);
          gl.vertexAttribPointer(m.position, 3, gl.FLOAT, false, 0, 0);
          gl.bindBuffer(gl.ARRAY_BUFFER, mesh.normal);
          gl.enableVertexAttribArray(m.normal);
          gl.vertexAttribPointer(m.normal, 3, gl.FLOAT, false, 0, 0);
          gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, mesh.indices);
          gl.drawElements(gl.TRIANGLES, mesh.count, gl.UNSIGNED_INT, 0);
        }
      }
      gl.disable(gl.BLEND);
      gl.depthMask(true);
      gl.disableVertexAttribArray(m.position);
      gl.disableVertexAttribArray(m.normal);

      this.drawLinks(multiply(projection, view), i, j, f);
    }

    // Clipping planes around the sphere holding every body and link over the whole motion.
    clipRange(view, scale) {
      const s = this.data.sphere;
      const depth = -transform(view, s, 1)[2];
      const reach = s[3] * scale;
      const far = (depth + reach) * 1.05 + 1e-6;
      if (!(far > 0)) return [0.1, 100];
      return [Math.max((depth - reach) * 0.95, far * 1e-4), far];
    }

    setLights(view, time) {
      const gl = this.gl;
      const u = this.mesh.uniforms;
      const lights = this.data.lights;
      const positions = new Float32Array(32);
      const colours = new Float32Array(24);
      let count = lights.per_sample;
      if (count === 0) {
        // The renderer's default light: white, shining from the eye into the screen.
        positions.set([0, 0, 1, 0]);
        colours.set([1, 1, 1]);
        count = 1;
      } else {
        const [i, j, f] = lights.count > 1 ? this.bracket(time) : [0, 0, 0];
        const n = 7 * count;
        const l = lerp(this.lights, n, i, j, f);
        for (let k = 0; k < count; k++) {
          const kind = this.lights[i * n + 7 * k];
          const vector = l.slice(7 * k + 1, 7 * k + 4);
          // A directional light's vector is the way it travels; the shader wants the way to it.
          const eye = kind === 0
            ? normalise(transform(view, vector.map((x) => -x), 0))
            : transform(view, vector, 1);
          positions.set([eye[0], eye[1], eye[2], kind === 0 ? 0 : 1], 4 * k);
          colours.set(l.slice(7 * k + 4, 7 * k + 7), 3 * k);
        }
      }
      gl.uniform1i(u.u_light_count, count);
      gl.uniform4fv(u.u_light_position, positions);
      gl.uniform3fv(u.u_light_colour, colours);
    }

    drawLinks(viewProjection, i, j, f) {
      const links = this.data.links;
      if (links.per_sample === 0) return;
      const gl = this.gl;
      const n = 6 * links.per_sample;
      const [a, b, w] = links.count > 1 ? [i, j, f] : [0, 0, 0];
      const ends = lerp(this.lines, n, a, b, w);
      const points = [];
      for (let k = 0; k < n; k += 6) {
        const segment = ends.slice(k, k + 6);
        if (segment.every(Number.isFinite)) points.push.apply(points, segment);
      }
      if (points.length === 0) return;
      const l = this.line;
      gl.useProgram(l.program);
      gl.uniformMatrix4fv(l.uniforms.u_view_projection, false, new Float32Array(viewProjection));
      gl.uniform4fv(l.uniforms.u_colour, links.colour);
      gl.bindBuffer(gl.ARRAY_BUFFER, this.lineBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(points), gl.DYNAMIC_DRAW);
      gl.enableVertexAttribArray(l.position);
      gl.vertexAttribPointer(l.position, 3, gl.FLOAT, false, 0, 0);
      gl.drawArrays(gl.LINES, 0, points.length / 3);
      gl.disableVertexAttribArray(l.position);
    }
  }

  // ---- the player: clock, controls, orbiting ----------------------------------------------

  class Player {
    constructor(figure) {
      const data = JSON.parse(figure.querySelector("script.asgard-data").textContent);
      this.figure = figure;
      this.canvas = figure.querySelector("canvas");
      this.start = data.start;
      this.finish = data.finish;
      this.time = data.start;
      this.rate = 1;
      this.loop = true;
      this.playing = false;
      this.userCamera = null;
      this.controls = {
        play: figure.querySelector(".asgard-play"),
        scrub: figure.querySelector(".asgard-scrub"),
        clock: figure.querySelector(".asgard-clock"),
        rate: figure.querySelector(".asgard-rate"),
        loop: figure.querySelector(".asgard-loop"),
      };
      this.fitCanvas();
      this.scene = new Scene(this.canvas, data);
      this.connect();
      this.show();
      this.play();
    }

    // The drawing buffer at the screen's resolution, for sharp edges on dense displays.
    fitCanvas() {
      const ratio = window.devicePixelRatio || 1;
      this.canvas.width = Math.round(this.canvas.clientWidth * ratio);
      this.canvas.height = Math.round(this.canvas.clientHeight * ratio);
    }

    connect() {
      const c = this.controls;
      c.play.addEventListener("click", () => (this.playing ? this.pause() : this.play()));
      c.scrub.min = this.start;
      c.scrub.max = this.finish;
      c.scrub.addEventListener("input", () => this.seek(Number(c.scrub.value)));
      c.rate.addEventListener("change", () => this.setRate(Number(c.rate.value)));
      c.loop.addEventListener("change", () => this.setLoop(c.loop.checked));
      this.canvas.addEventListener("keydown", (e) => {
        if (e.key === " ") {
          e.preventDefault();
          this.playing ? this.pause() : this.play();
        }
      });
      this.orbiting();
    }

    // Dragging turns the view about its centre like a virtual sphere (as the editor's view
    // does); the wheel scales it; a double click returns to the scene's own view.
    orbiting() {
      const canvas = this.canvas;
      let last = null;
      const spherePoint = (event) => {
        const rect = canvas.getBoundingClientRect();
        const radius = Math.max(Math.min(rect.width, rect.height), 1) / 2;
        const x = (event.clientX - rect.left - rect.width / 2) / radius;
        const y = -(event.clientY - rect.top - rect.height / 2) / radius;
        const r2 = x * x + y * y;
        return r2 <= 1 ? [x, y, Math.sqrt(1 - r2)] : normalise([x, y, 0]);
      };
      canvas.addEventListener("pointerdown", (event) => {
        if (event.button !== 0) return;
        canvas.setPointerCapture(event.pointerId);
        last = spherePoint(event);
        this.userCamera = this.userCamera || this.scene.sceneCamera(this.time);
      });
      canvas.addEventListener("pointermove", (event) => {
        if (!last) return;
        const next = spherePoint(event);
        const turn = rotationBetween(last, next);
        this.userCamera.rotation = normalise(quaternionMultiply(turn, this.userCamera.rotation));
        last = next;
        this.show();
      });
      const release = () => (last = null);
      canvas.addEventListener("pointerup", release);
      canvas.addEventListener("pointercancel", release);
      canvas.addEventListener("wheel", (event) => {
        event.preventDefault();
        this.userCamera = this.userCamera || this.scene.sceneCamera(this.time);
        this.userCamera.scale *= Math.pow(2, -event.deltaY / 500);
        this.show();
      }, { passive: false });
      canvas.addEventListener("dblclick", () => {
        this.userCamera = null;
        this.show();
      });
    }

    play() {
      if (this.playing) return;
      if (this.time >= this.finish && !this.loop) this.time = this.start;
      this.playing = true;
      let previous = null;
      const tick = (now) => {
        if (!this.playing) return;
        if (previous !== null) this.advance(((now - previous) / 1000) * this.rate);
        previous = now;
        this.show();
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      this.show();
    }

    pause() {
      this.playing = false;
      this.show();
    }

    seek(time) {
      if (!Number.isFinite(time)) return;
      this.time = Math.min(Math.max(time, this.start), this.finish);
      this.show();
    }

    setRate(rate) {
      if (rate > 0 && Number.isFinite(rate)) this.rate = rate;
      this.show();
    }

    setLoop(loop) {
      this.loop = !!loop;
      this.show();
    }

    advance(seconds) {
      const span = this.finish - this.start;
      let time = this.time + seconds;
      if (time > this.finish) {
        if (this.loop && span > 0) {
          time = this.start + ((time - this.start) % span);
        } else {
          time = this.finish;
          this.playing = false;
        }
      }
      this.time = time;
    }

    // Draws the picture at the current time and shows the state in the controls and on the
    // figure.
    show() {
      const camera = this.userCamera || this.scene.sceneCamera(this.time);
      this.scene.draw(this.time, camera);
      const c = this.controls;
      c.play.textContent = this.playing ? "Pause" : "Play";
      c.play.setAttribute("aria-pressed", String(this.playing));
      if (document.activeElement !== c.scrub || !this.playing) c.scrub.value = String(this.time);
      c.clock.textContent = `${this.time.toFixed(2)} s`;
      c.rate.value = String(this.rate);
      c.loop.checked = this.loop;
      const f = this.figure.dataset;
      f.time = String(this.time);
      f.playing = String(this.playing);
      f.rate = String(this.rate);
      f.loop = String(this.loop);
    }
  }

  function start() {
    const players = [];
    for (const figure of document.querySelectorAll("figure.asgard-player")) {
      try {
        players.push(new Player(figure));
      } catch (error) {
        const note = figure.querySelector(".asgard-note");
        note.textContent = `This animation cannot be shown here: ${error.message}`;
        note.hidden = false;
        players.push(null);
      }
    }
    window.asgardPlayers = players;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
