//! Tests of the mask gather against the general plan (`advanced_index`).

use super::*;
use crate::kernels::elemwise::cast::cast;
use crate::kernels::index::advanced::{gather, plan};
use crate::kernels::random_mask;

const MASK: [IdxEntry; 1] = [IdxEntry::Index(0)];

fn arange(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    Tensor::from_vec(shape.to_vec(), (0..n).map(|v| v as f64 * 0.5).collect()).unwrap()
}

fn planned_gather(x: &Tensor, mask: &Tensor) -> Tensor {
    let p = plan(x, &MASK, &[mask]).unwrap();
    let mut out = Tensor::zeros(x.dtype(), &p.out_shape()).unwrap();
    gather(&p, &mut out).unwrap();
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
            let mask = random_mask(&shape[..k], density, seed);
            let got = mask_gather(&x, &mask, &mut pool).unwrap();
            let want = planned_gather(&x, &mask);
            assert!(got.same_values(&want), "{shape:?}[..{k}] at {density}");
        }
    }
}

#[test]
fn gathers_every_element_size_and_strided_operands() {
    let mut pool = Pool::default();
    let mask = random_mask(&[40, 9], 0.5, 5);
    let x = arange(&[40, 9]);
    for dtype in [
        DType::Bool,
        DType::Int16,
        DType::Float32,
        DType::Int64,
        DType::Complex128,
    ] {
        let xd = cast(&x, dtype).unwrap();
        let got = mask_gather(&xd, &mask, &mut pool).unwrap();
        assert!(got.same_values(&planned_gather(&xd, &mask)), "{dtype}");
    }
    // A transposed x and a mask taking every other column of a wider one.
    let xt = arange(&[9, 40]);
    let xt = xt.view(&[40, 9], &[8, 320], 0).unwrap();
    let wide = random_mask(&[40, 18], 0.3, 6);
    let strided = wide.view(&[40, 9], &[18, 2], 0).unwrap();
    let got = mask_gather(&xt, &strided, &mut pool).unwrap();
    assert!(got.same_values(&planned_gather(&xt, &strided)));
}

#[test]
fn mismatched_masks_and_values_are_errors() {
    let mut pool = Pool::default();
    let x = arange(&[4, 5]);
    let mask = random_mask(&[4, 6], 0.5, 1);
    let err = mask_gather(&x, &mask, &mut pool).unwrap_err();
    assert_eq!(
        err.to_string(),
        "boolean index did not match indexed array along axis 1; size of axis is 5 but size of corresponding boolean axis is 6"
    );
}

#[test]
fn only_a_leading_mask_then_full_slices_is_taken() {
    let mask = random_mask(&[4], 0.5, 1);
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
