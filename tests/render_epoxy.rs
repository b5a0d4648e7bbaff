//! The libepoxy loader drives the same renderer: with an EGL context current (as GTK's would
//! be), functions loaded through libepoxy compile the shaders and draw into a framebuffer.

mod render_support;

use asgard::render::epoxy::load_gl;
use asgard::render::frame::Frame;
use asgard::render::offscreen::OffscreenTarget;
use asgard::render::renderer::Renderer;
use asgard::render::shader::ShaderDialect;
use glow::HasContext;
use render_support::*;

#[test]
fn renderer_draws_through_epoxy_loaded_functions() {
    let context = OffscreenTarget::new(8, 8).unwrap();
    context.make_current().unwrap();
    let (gl, _library) = unsafe { load_gl() }.expect("libepoxy");
    let version = unsafe { gl.get_parameter_string(glow::VERSION) };
    assert!(
        version.starts_with("3.3") || version.starts_with('4'),
        "{version}"
    );
    // A framebuffer of our own stands in for the one GTK binds before the render signal.
    let (framebuffer, colour, depth) = unsafe {
        let framebuffer = gl.create_framebuffer().unwrap();
        let colour = gl.create_renderbuffer().unwrap();
        let depth = gl.create_renderbuffer().unwrap();
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(colour));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, 64, 64);
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth));
        gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH_COMPONENT24, 64, 64);
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            Some(colour),
        );
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            Some(depth),
        );
        assert_eq!(
            gl.check_framebuffer_status(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        (framebuffer, colour, depth)
    };
    let mut renderer = Renderer::new(gl, ShaderDialect::Gl33Core).unwrap();
    renderer.upload_missing(&library()).unwrap();
    let frame = Frame {
        objects: vec![object(CUBE, [0.0, 0.0, 0.0], [0.6, 0.3, 0.2, 1.0])],
        camera: front_camera(),
        ..Frame::default()
    };
    // An empty drawable (GTK lays windows out through zero sizes) draws nothing, and fails not.
    renderer.draw(&frame, 0, 64).unwrap();
    renderer.draw(&frame, 64, 64).unwrap();
    let gl = renderer.gl();
    let mut centre = [0u8; 4];
    let mut corner = [0u8; 4];
    unsafe {
        gl.read_pixels(
            32,
            32,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut centre)),
        );
        gl.read_pixels(
            0,
            0,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut corner)),
        );
        gl.delete_framebuffer(framebuffer);
        gl.delete_renderbuffer(colour);
        gl.delete_renderbuffer(depth);
    }
    assert!(
        centre[0].abs_diff(105) <= 2 && centre[1].abs_diff(52) <= 2,
        "{centre:?}"
    );
    assert_eq!(corner, [0, 0, 0, 255]);
    drop(renderer);
}
