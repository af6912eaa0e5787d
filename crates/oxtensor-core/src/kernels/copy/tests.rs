//! Every copy path against an element-by-element reference, for every
//! element size: contiguous, strided, negative, broadcast (0-stride),
//! tiled transposes with partial edge tiles, empty, 0-d, and copies large
//! enough to be split across threads.

use super::*;
use crate::dtype::DType;

/// One dtype of each element size.
const DTYPES: [DType; 6] = [
    DType::UInt8,
    DType::Bool,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Complex128,
];

/// A `shape` tensor of `dtype` whose bytes all differ from their
/// neighbours (bools get 0/1 bytes, as Rust requires).
fn source(dtype: DType, shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>() * dtype.itemsize();
    let bytes = (0..n)
        .map(|i| {
            let b = (i * 7 + i / 251) as u8;
            if dtype == DType::Bool {
                b & 1
            } else {
                b
            }
        })
        .collect();
    Tensor::from_bytes(dtype, shape.to_vec(), bytes).unwrap()
}

/// `t`'s elements in C order, read one by one through its strides.
fn reference(t: &Tensor) -> Vec<u8> {
    let size = t.dtype().itemsize();
    let mut out = Vec::with_capacity(t.len() * size);
    for flat in 0..t.len() {
        let (mut rest, mut off) = (flat, 0isize);
        for d in (0..t.ndim()).rev() {
            off += (rest % t.shape()[d]) as isize * t.strides()[d];
            rest /= t.shape()[d];
        }
        // SAFETY: the offset addresses an element of `t`'s checked layout.
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(t.as_ptr().offset(off), size) });
    }
    out
}

/// The bytes of a C-contiguous tensor.
fn bytes_of(t: &Tensor) -> Vec<u8> {
    let n = t.len() * t.dtype().itemsize();
    // SAFETY: `t` is C-contiguous, so its `n` bytes follow `as_ptr`.
    unsafe { std::slice::from_raw_parts(t.as_ptr(), n) }.to_vec()
}

/// A view of `base` with `shape`, strides and offset in elements.
fn view(base: &Tensor, shape: &[usize], strides: &[isize], offset: usize) -> Tensor {
    let size = base.dtype().itemsize() as isize;
    let strides: Vec<isize> = strides.iter().map(|s| s * size).collect();
    base.view(shape, &strides, offset * size as usize).unwrap()
}

fn check(t: &Tensor, what: &str) {
    let out = copy_contiguous(t).unwrap();
    assert!(out.is_c_contiguous());
    assert_eq!(out.shape(), t.shape());
    assert!(bytes_of(&out) == reference(t), "{what}, {}", t.dtype());
}

#[test]
fn strided_negative_and_broadcast() {
    for dtype in DTYPES {
        let base = source(dtype, &[70, 90]);
        check(&view(&base, &[5, 7], &[90, 1], 3), "contiguous rows");
        check(
            &view(&base, &[23, 30], &[180, 3], 91),
            "every 2nd row, 3rd column",
        );
        check(
            &view(&base, &[6, 9], &[-90, -2], 5 * 90 + 17),
            "negative strides",
        );
        check(&view(&base, &[4, 51], &[0, 1], 2), "broadcast rows");
        check(
            &view(&base, &[51, 3], &[1, 0], 0),
            "broadcast columns (short runs)",
        );
        check(
            &view(&base, &[3, 5, 2], &[90, 1, 0], 0),
            "short broadcast run",
        );
        check(&view(&base, &[0, 5], &[90, 1], 0), "empty");
        check(&view(&base, &[], &[], 77), "0-d");
        check(&view(&base, &[1, 1, 7], &[5, 3, -1], 40), "length-1 axes");
    }
}

#[test]
fn tiled_transposes_with_edge_tiles() {
    for dtype in DTYPES {
        let base = source(dtype, &[70, 90]);
        check(&view(&base, &[90, 70], &[1, 90], 0), "transpose");
        check(&view(&base, &[65, 67], &[1, 90], 3), "odd transpose");
        check(&view(&base, &[45, 70], &[-2, 90], 89), "negative transpose");
        let cube = source(dtype, &[3, 70, 66]);
        check(&view(&cube, &[66, 3, 70], &[1, 4620, 66], 0), "3-d permute");
        check(
            &view(&cube, &[3, 66, 70], &[4620, 1, 66], 0),
            "batched transpose",
        );
    }
}

#[test]
fn large_copies_split_across_threads() {
    for dtype in [DType::UInt8, DType::Float64] {
        let side = if dtype == DType::UInt8 { 900 } else { 300 };
        let base = source(dtype, &[side, side + 3]);
        let s = side as isize + 3;
        check(
            &view(&base, &[side + 3, side], &[1, s], 0),
            "large transpose",
        );
        check(
            &view(&base, &[side, side + 3], &[s, 1], 0),
            "large contiguous",
        );
        check(
            &view(&base, &[side / 2, side], &[2 * s, 1], 0),
            "large row slice",
        );
        check(&view(&base, &[side, side], &[s, 0], 0), "large broadcast");
    }
}

#[test]
fn tiling_is_chosen_only_for_far_strides() {
    let nest = |src: [isize; 2]| Nest::new(&[100, 100], [src[..].into(), [800, 8][..].into()]);
    assert_eq!(transpose_dims(&nest([8, 800]), 8), Some((1, 0)));
    assert_eq!(transpose_dims(&nest([800, 24]), 8), None, "a column step");
    assert_eq!(transpose_dims(&nest([0, 800]), 8), None, "a broadcast");
}
