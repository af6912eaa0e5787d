//! Tests of mask indexing against the general plan (`advanced_index`).

use super::*;
use crate::kernels::advanced_index::{gather, plan, scatter};
use crate::kernels::copy::copy_into;
use crate::kernels::pseudo_random;

const MASK: [IdxEntry; 1] = [IdxEntry::Index(0)];

fn mask_of(shape: &[usize], density: f64, seed: u64) -> Tensor {
    let n = shape.iter().product();
    let flags = pseudo_random(n, seed).into_iter().map(|u| u < density);
    Tensor::from_vec(shape.to_vec(), flags.collect()).unwrap()
}

fn arange(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    Tensor::from_vec(shape.to_vec(), (0..n).map(|v| v as f64 * 0.5).collect()).unwrap()
}

fn planned_gather(x: &Tensor, mask: &Tensor) -> Tensor {
    let p = plan(x, &MASK, &[mask]).unwrap();
    let mut out = Tensor::zeros(x.dtype(), &p.out_shape());
    gather(&p, &mut out).unwrap();
    out
}

fn copy(x: &Tensor) -> Tensor {
    let mut out = Tensor::zeros(x.dtype(), x.shape());
    copy_into(x, &mut out);
    out
}

fn planned_scatter(x: &Tensor, mask: &Tensor, y: &Tensor, write: Write) -> Tensor {
    let out = copy(x);
    let mut p = plan(&out, &MASK, &[mask]).unwrap();
    scatter(&mut p, y, &[], write, "t").unwrap();
    drop(p);
    out
}

fn fast_scatter(x: &Tensor, mask: &Tensor, y: &Tensor, write: Write) -> Tensor {
    let mut out = copy(x);
    assert!(mask_scatter(&mut out, mask, y, &[], write, "t").unwrap(), "taken");
    out
}

#[test]
fn gathers_match_the_general_plan() {
    let mut pool = Pool::default();
    // Full-shape masks (elements), leading-axis masks (rows), lengths
    // around word and part boundaries, every density.
    let cases: &[(&[usize], usize)] = &[
        (&[1], 1),
        (&[63], 1),
        (&[65], 1),
        (&[200_003], 1),
        (&[5, 7], 2),
        (&[300, 301], 2),
        (&[130, 3], 1),
        (&[70_000, 2], 1),
        (&[4, 5, 6], 2),
        (&[0, 3], 1),
    ];
    for &(shape, k) in cases {
        let x = arange(shape);
        for (seed, density) in [(1, 0.0), (2, 0.01), (3, 0.5), (4, 1.0)] {
            let mask = mask_of(&shape[..k], density, seed);
            let got = mask_gather(&x, &mask, &mut pool).unwrap();
            let want = planned_gather(&x, &mask);
            assert!(got.same_values(&want), "{shape:?}[..{k}] at {density}");
        }
    }
}

#[test]
fn gathers_every_element_size_and_strided_operands() {
    let mut pool = Pool::default();
    let mask = mask_of(&[40, 9], 0.5, 5);
    let x = arange(&[40, 9]);
    for dtype in [
        DType::Bool,
        DType::Int16,
        DType::Float32,
        DType::Int64,
        DType::Complex128,
    ] {
        let xd = cast(&x, dtype);
        let got = mask_gather(&xd, &mask, &mut pool).unwrap();
        assert!(got.same_values(&planned_gather(&xd, &mask)), "{dtype}");
    }
    // A transposed x and a mask taking every other column of a wider one.
    let xt = arange(&[9, 40]);
    let xt = xt.view(&[40, 9], &[8, 320], 0).unwrap();
    let wide = mask_of(&[40, 18], 0.3, 6);
    let strided = wide.view(&[40, 9], &[18, 2], 0).unwrap();
    let got = mask_gather(&xt, &strided, &mut pool).unwrap();
    assert!(got.same_values(&planned_gather(&xt, &strided)));
}

#[test]
fn scatters_match_the_general_plan() {
    let x = arange(&[70, 33]);
    for (seed, density) in [(1, 0.0), (2, 0.02), (3, 0.5), (4, 1.0)] {
        for k in [1, 2] {
            let mask = mask_of(&x.shape()[..k], density, seed);
            let count = MaskBits::from_tensor(&mask).count;
            let mut shape = vec![count];
            shape.extend_from_slice(&x.shape()[k..]);
            let values = [
                Tensor::scalar(-3.0f64),
                arange(&shape),
                arange(&shape[1..]),
                Tensor::from_vec(vec![count], vec![2i64; count]).unwrap(),
            ];
            for y in values.iter().filter(|y| y.ndim() <= shape.len()) {
                if k == 1 && y.ndim() == 1 && y.shape() == [count] && count != 33 {
                    continue; // y of the mask's length against rows: no fit.
                }
                for write in [Write::Set, Write::Inc] {
                    let got = fast_scatter(&x, &mask, y, write);
                    let want = planned_scatter(&x, &mask, y, write);
                    assert!(got.same_values(&want), "{density} k={k} y{:?}", y.shape());
                }
            }
        }
    }
}

#[test]
fn scatters_every_dtype_and_keep_signed_zeros() {
    let mask = mask_of(&[200], 0.5, 8);
    let x = Tensor::from_vec(vec![200], vec![-0.0f64; 200]).unwrap();
    for dtype in [DType::Bool, DType::UInt8, DType::Int32, DType::Float16, DType::Complex64] {
        let xd = cast(&x, dtype);
        for write in [Write::Set, Write::Inc] {
            let y = Tensor::scalar(1.0f64);
            let got = fast_scatter(&xd, &mask, &y, write);
            assert!(got.same_values(&planned_scatter(&xd, &mask, &y, write)), "{dtype}");
        }
    }
    // Unset positions keep -0.0 when incrementing (no `+ 0.0`).
    let got = fast_scatter(&x, &mask, &Tensor::scalar(1.0f64), Write::Inc);
    let flags = mask.as_slice::<bool>().unwrap();
    let vals = got.as_slice::<f64>().unwrap();
    for (&f, &v) in flags.iter().zip(vals) {
        assert!(if f { v == 1.0 } else { v == 0.0 && v.is_sign_negative() });
    }
}

#[test]
fn mismatched_masks_and_values_are_errors() {
    let mut pool = Pool::default();
    let x = arange(&[4, 5]);
    let mask = mask_of(&[4, 6], 0.5, 1);
    let err = mask_gather(&x, &mask, &mut pool).unwrap_err();
    assert_eq!(
        err.to_string(),
        "boolean index did not match indexed array along axis 1; size of axis is 5 but size of corresponding boolean axis is 6"
    );
    let mut out = copy(&x);
    assert!(mask_scatter(&mut out, &mask, &Tensor::scalar(1.0f64), &[], Write::Set, "t").is_err());
    let all = mask_of(&[4, 5], 1.0, 1);
    let three = Tensor::from_vec(vec![3], vec![1.0f64; 3]).unwrap();
    let err = mask_scatter(&mut out, &all, &three, &[], Write::Set, "Op").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Op: cannot assign slice of shape [20] from input of shape [3]"
    );
}

#[test]
fn only_a_leading_mask_then_full_slices_is_taken() {
    let mask = mask_of(&[4], 0.5, 1);
    let ints = Tensor::from_vec(vec![1], vec![0i64]).unwrap();
    let full = IdxEntry::FULL;
    let one = IdxEntry::Index(0);
    assert!(leading_mask(&[one], &[&mask], 2).is_some());
    assert!(leading_mask(&[one, full], &[&mask], 2).is_some());
    assert!(leading_mask(&[one, full, full], &[&mask], 2).is_none());
    assert!(leading_mask(&[full, IdxEntry::Index(0)], &[&mask], 2).is_none());
    assert!(leading_mask(&[one], &[&ints], 2).is_none());
    let bounded = IdxEntry::Slice {
        start: Some(1),
        stop: None,
        step: None,
    };
    assert!(leading_mask(&[one, bounded], &[&mask, &ints], 2).is_none());
}
