//! Single-thread nanoseconds per element of every vmath loop at every build
//! the CPU runs, on the value ranges `benches/bench_elementwise.py` uses
//! (2048 elements, so the data stays in L1 and only the arithmetic is timed;
//! the best of many short runs, so load from other processes mostly drops
//! out).
//!
//! `cargo run -p oxtensor-core --release --example vmath_speed [filter]`

use oxtensor_core::kernels::cpu::{levels, Level};
use oxtensor_core::kernels::elemwise::map::Part;
use oxtensor_core::kernels::vmath::{kind_slices, Elem, Func};
use oxtensor_core::scalar::ScalarKind;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 2048;

const FUNCS: [(&str, Func, f64, f64); 9] = [
    ("exp", Func::Exp, -5.0, 5.0),
    ("exp2", Func::Exp2, -5.0, 5.0),
    ("expm1", Func::Expm1, -5.0, 5.0),
    ("log", Func::Log, 0.1, 10.0),
    ("log2", Func::Log2, 0.1, 10.0),
    ("log10", Func::Log10, 0.1, 10.0),
    ("log1p", Func::Log1p, 0.1, 10.0),
    ("sigmoid", Func::Sigmoid, -5.0, 5.0),
    ("softplus", Func::Softplus, -5.0, 5.0),
];

/// `N` values evenly spread over [lo, hi), in a scrambled order.
fn values(lo: f64, hi: f64) -> Vec<f64> {
    (0..N)
        .map(|i| lo + (hi - lo) * ((i * 1237) % N) as f64 / N as f64)
        .collect()
}

/// The best time of `run` in ns per element, over many short repeats.
fn ns_per_elem(mut run: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..40 {
        let t = Instant::now();
        for _ in 0..50 {
            run();
        }
        best = best.min(t.elapsed().as_secs_f64() / (50 * N) as f64);
    }
    best * 1e9
}

/// The trigonometric and hyperbolic kinds, timed at the process's build
/// only (`OXTENSOR_SIMD` caps it).
const KINDS: [(&str, ScalarKind, f64, f64); 12] = [
    ("sin", ScalarKind::Sin, -5.0, 5.0),
    ("cos", ScalarKind::Cos, -5.0, 5.0),
    ("tan", ScalarKind::Tan, -1.0, 1.0),
    ("arcsin", ScalarKind::ArcSin, -0.9, 0.9),
    ("arccos", ScalarKind::ArcCos, -0.9, 0.9),
    ("arctan", ScalarKind::ArcTan, -5.0, 5.0),
    ("sinh", ScalarKind::Sinh, -5.0, 5.0),
    ("cosh", ScalarKind::Cosh, -5.0, 5.0),
    ("tanh", ScalarKind::Tanh, -5.0, 5.0),
    ("arcsinh", ScalarKind::ArcSinh, -5.0, 5.0),
    ("arccosh", ScalarKind::ArcCosh, 1.1, 5.0),
    ("arctanh", ScalarKind::ArcTanh, -0.9, 0.9),
];

fn kind<T: Default + Copy>(run: fn(&mut [T], &[T]), xs: &[T]) -> f64 {
    let mut ys = vec![T::default(); xs.len()];
    ns_per_elem(|| run(black_box(&mut ys), black_box(xs)))
}

fn unary<T: Elem + Default>(lvl: Level, func: Func, xs: &[T]) -> f64 {
    let mut ys = vec![T::default(); xs.len()];
    ns_per_elem(|| T::unary_at(lvl, func, black_box(&mut ys), black_box(xs)))
}

fn pow<T: Elem + Default>(lvl: Level, xs: &[T], ys: &[T]) -> f64 {
    let mut zs = vec![T::default(); xs.len()];
    ns_per_elem(|| {
        T::pow_at(
            lvl,
            black_box(&mut zs),
            Part::Full(black_box(xs)),
            Part::Full(black_box(ys)),
        )
    })
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let lvls = levels();
    println!("{:<14}{lvls:?}", "ns/element");
    let line = |name: String, f: &dyn Fn(Level) -> f64| {
        if name.contains(&filter) {
            let cells: Vec<String> = lvls.iter().map(|&l| format!("{:7.3}", f(l))).collect();
            println!("{name:<14}{}", cells.join(" "));
        }
    };
    for (name, func, lo, hi) in FUNCS {
        let xs = values(lo, hi);
        let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        line(format!("{name} f64"), &|l| unary(l, func, &xs));
        line(format!("{name} f32"), &|l| unary(l, func, &xs32));
    }
    let (xs, ys) = (values(0.5, 2.0), values(0.5, 2.0));
    let ys: Vec<f64> = ys.iter().rev().copied().collect();
    let (xs32, ys32): (Vec<f32>, Vec<f32>) = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| (x as f32, y as f32))
        .unzip();
    line("pow f64".into(), &|l| pow(l, &xs, &ys));
    line("pow f32".into(), &|l| pow(l, &xs32, &ys32));
    for (name, k, lo, hi) in KINDS {
        let Some((run64, run32)) = kind_slices(k) else {
            continue;
        };
        let xs = values(lo, hi);
        let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        let one = |name: String, time: &dyn Fn() -> f64| {
            if name.contains(&filter) {
                println!("{name:<14}{:7.3} (process level)", time());
            }
        };
        one(format!("{name} f64"), &|| kind(run64, &xs));
        one(format!("{name} f32"), &|| kind(run32, &xs32));
    }
}
