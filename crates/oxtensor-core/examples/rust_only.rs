//! oxtensor from Rust alone: build `y = sum(exp(x * 2))`, compile it, run
//! it on our own array, and print the graph.
//!
//! `cargo run -p oxtensor-core --example rust_only`

use oxtensor_core::prelude::*;
use oxtensor_core::vm::{LinkOptions, Program};
use std::collections::HashMap;

fn main() -> Result<()> {
    let mut g = Graph::new();
    let x = g.input(TensorType::with_ndim(DType::Float64, 1), Some("x"));
    let two = g.tensor_constant(Tensor::scalar(2.0f64));
    let scaled = build::mul(&mut g, x, two)?;
    let e = build::exp(&mut g, scaled)?;
    let y = build::sum(&mut g, e, None)?;
    let fg = FunctionGraph::new(g, vec![x], vec![y])?;
    print!("{}", debugprint(&fg, &PrintOptions::default()));

    let program = Program::link(&fg, HashMap::new(), &LinkOptions::default())?;
    let input = Tensor::from_vec(vec![3], vec![0.0, 0.5, 1.0])?;
    let out = program.run(vec![input.into()])?;
    let t = out[0].tensor()?;
    println!("y = {}", oxtensor_core::tensor::format_tensor(t));
    Ok(())
}
