//! oxtensor from Rust alone: build `y = sum(log(1 + exp(x * 2)) ** 2)`, its
//! gradient and its Hessian (a `Jacobian` node looping over the gradient's
//! rows), compile them with the `FAST_RUN` rewrites (the same ones
//! Python gets), run them on our own array, and print the rewritten graph.
//!
//! `cargo run -p oxtensor-core --example rust_only`

use oxtensor_core::compile::{compile, FunctionInput, FunctionSpec, Mode};
use oxtensor_core::grad::{grad, hessian, GradRequest, JacobianRequest};
use oxtensor_core::prelude::*;

fn main() -> Result<()> {
    let mut g = Graph::new();
    let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
    let two = g.tensor_constant(Tensor::scalar(2.0f64));
    let one = g.tensor_constant(Tensor::scalar(1.0f64));
    let scaled = build::mul(&mut g, x, two)?;
    let e = build::exp(&mut g, scaled)?;
    let sum = build::add(&mut g, one, e)?;
    let soft = build::log(&mut g, sum)?;
    let sq = build::pow(&mut g, soft, two)?;
    let y = build::sum(&mut g, sq, None)?;
    let dy = grad(&mut g, &GradRequest::new(y, &[x]), None)?.grads[0].expect("x reaches the cost");
    let h = hessian(&mut g, &JacobianRequest::new(y, &[x]), None)?.grads[0].expect("x reaches it");

    let spec = FunctionSpec {
        inputs: vec![FunctionInput::new(x)],
        outputs: vec![(y, false), (dy, false), (h, false)],
        ..FunctionSpec::default()
    };
    let compiled = compile(g, spec, &Mode::fast_run())?;
    print!(
        "{}",
        debugprint(&compiled.built.fgraph, &PrintOptions::default())
    );

    let input = Tensor::from_vec(vec![3], vec![0.0, 0.5, 1.0])?;
    let out = compiled.program.run(vec![input.into()])?;
    for (name, v) in ["y", "dy/dx", "d2y/dx2"].iter().zip(&out) {
        println!(
            "{name} = {}",
            oxtensor_core::tensor::format_tensor(v.tensor()?)
        );
    }
    Ok(())
}
