//! Tests of mask set/inc against the general plan (`advanced_index`), in
//! its three ways: one pass into a fresh tensor, in place into a lent `x`,
//! and into a copy of a strided `x`.

use super::*;
use crate::error::Error;
use crate::kernels::copy::copy_into;
use crate::kernels::index::advanced::{plan, scatter};
use crate::kernels::random_mask;
use crate::tensor::index::IdxEntry;

fn arange(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    Tensor::from_vec(shape.to_vec(), (0..n).map(|v| v as f64 * 0.5).collect()).unwrap()
}

fn copy(x: &Tensor) -> Tensor {
    let mut out = Tensor::zeros(x.dtype(), x.shape()).unwrap();
    copy_into(x, &mut out).unwrap();
    out
}

fn planned(x: &Tensor, mask: &Tensor, y: &Tensor, write: Write) -> Tensor {
    let out = copy(x);
    let mut p = plan(&out, &[IdxEntry::Index(0)], &[mask]).unwrap();
    scatter(&mut p, y, &[], write, "t").unwrap();
    drop(p);
    out
}

/// [`check`] of setting `y` and of adding it.
fn check_writes(x: &Tensor, mask: &Tensor, y: &Tensor, what: &str) {
    for write in [Write::Set, Write::Inc] {
        check(x, mask, y, write, &format!("{what} {write:?}"));
    }
}

/// The update in each of its three ways, checked against the plan.
fn check(x: &Tensor, mask: &Tensor, y: &Tensor, write: Write, what: &str) {
    let want = planned(x, mask, y, write);
    let mut pool = Pool::default();
    let fresh = mask_update(&mut pool, x, mask, y, &[], write, "t").unwrap();
    assert!(fresh.unwrap().same_values(&want), "fresh: {what}");
    let lent = copy(x);
    pool.lend(lent.clone());
    let out = mask_update(&mut pool, &lent, mask, y, &[], write, "t")
        .unwrap()
        .unwrap();
    assert!(out.shares_buffer(&lent), "written in place: {what}");
    assert!(out.same_values(&want), "in place: {what}");
    if x.ndim() == 2 {
        // The same values through a transposed (strided) `x`.
        let xt = copy(
            &x.view(
                &[x.shape()[1], x.shape()[0]],
                &[x.strides()[1], x.strides()[0]],
                0,
            )
            .unwrap(),
        );
        let strided = xt
            .view(x.shape(), &[xt.strides()[1], xt.strides()[0]], 0)
            .unwrap();
        let out = mask_update(&mut pool, &strided, mask, y, &[], write, "t").unwrap();
        assert!(out.unwrap().same_values(&want), "strided: {what}");
    }
}

#[test]
fn updates_match_the_general_plan() {
    let x = arange(&[70, 33]);
    for (seed, density) in [(1, 0.0), (2, 0.02), (3, 0.5), (4, 1.0)] {
        for k in [1, 2] {
            let mask = random_mask(&x.shape()[..k], density, seed);
            let count = MaskBits::from_tensor(&mask).unwrap().count;
            let mut shape = vec![count];
            shape.extend_from_slice(&x.shape()[k..]);
            let mut values = vec![Tensor::scalar(-3.0f64), arange(&shape), arange(&shape[1..])];
            if k == 2 {
                values.push(Tensor::from_vec(vec![count], vec![2i64; count]).unwrap());
            } else {
                // One value per set row, broadcast along it.
                values.push(arange(&[count, 1]));
            }
            for y in &values {
                let what = format!("{density} k={k} y{:?}", y.shape());
                check_writes(&x, &mask, y, &what);
            }
        }
    }
}

#[test]
fn long_masks_in_parts_with_runs_of_empty_and_full_words() {
    let x = arange(&[200_003]);
    for (seed, density) in [(1, 0.0), (2, 0.001), (3, 0.999), (4, 1.0)] {
        let mask = random_mask(&[200_003], density, seed);
        check_writes(&x, &mask, &Tensor::scalar(2.5f64), &format!("{density}"));
    }
}

#[test]
fn every_dtype_and_signed_zeros() {
    let mask = random_mask(&[200], 0.5, 8);
    let x = Tensor::from_vec(vec![200], vec![-0.0f64; 200]).unwrap();
    for dtype in [
        DType::Bool,
        DType::UInt8,
        DType::Int32,
        DType::Float16,
        DType::Complex64,
    ] {
        let xd = cast(&x, dtype).unwrap();
        check_writes(&xd, &mask, &Tensor::scalar(1.0f64), &format!("{dtype}"));
    }
    // Unset positions keep -0.0 when incrementing (no `+ 0.0`).
    let got = mask_update(
        &mut Pool::default(),
        &x,
        &mask,
        &Tensor::scalar(1.0f64),
        &[],
        Write::Inc,
        "t",
    );
    let got = got.unwrap().unwrap();
    let flags = mask.as_slice::<bool>().unwrap();
    for (&f, &v) in flags.iter().zip(got.as_slice::<f64>().unwrap()) {
        assert!(if f {
            v == 1.0
        } else {
            v == 0.0 && v.is_sign_negative()
        });
    }
}

#[test]
fn empty_tensors_and_errors() {
    let mut pool = Pool::default();
    let one = Tensor::scalar(1.0f64);
    let empty = Tensor::zeros(DType::Float64, &[3, 0]).unwrap();
    let mask = random_mask(&[3], 1.0, 1);
    let out = mask_update(&mut pool, &empty, &mask, &one, &[], Write::Set, "t").unwrap();
    assert_eq!(out.unwrap().shape(), &[3, 0]);
    let x = arange(&[4, 5]);
    let bad = random_mask(&[4, 6], 0.5, 1);
    let err = mask_update(&mut pool, &x, &bad, &one, &[], Write::Set, "t").unwrap_err();
    assert!(matches!(err, Error::Index(_)), "{err}");
    let all = random_mask(&[4, 5], 1.0, 1);
    let three = Tensor::from_vec(vec![3], vec![1.0f64; 3]).unwrap();
    let err = mask_update(&mut pool, &x, &all, &three, &[], Write::Set, "Op").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Op: cannot assign slice of shape [20] from input of shape [3]"
    );
}
