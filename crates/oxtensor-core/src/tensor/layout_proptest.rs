//! Property: the layout constructor. Sizes of any shape (lengths near
//! powers of two, zeros, products past 2^64) are accepted exactly when
//! the exact product fits `isize`, and a view built over a buffer is
//! refused, never accepted out of bounds, for any shape, strides and offset.

use super::layout::{self, MAX_BYTES};
use super::{Dims, Strides, Tensor};
use crate::dtype::DType;
use crate::error::Error;
use proptest::prelude::*;

/// Lengths a hostile caller picks: small ones, and ones near powers of two.
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..5,
        (1u32..64, -2i64..=2).prop_map(|(p, d)| ((1u128 << p) as i128 + d as i128) as usize),
        Just(usize::MAX),
        any::<usize>(),
    ]
}

fn dtype() -> impl Strategy<Value = DType> {
    proptest::sample::select(DType::ALL.to_vec())
}

fn exact_bytes(itemsize: usize, shape: &[usize]) -> Option<u128> {
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(itemsize as u128, |acc, &d| acc.checked_mul(d as u128))
}

proptest! {
    #[test]
    fn sizes_are_exact_or_refused(dtype in dtype(), shape in prop::collection::vec(length(), 0..6)) {
        let exact = exact_bytes(dtype.itemsize(), &shape).filter(|&n| n <= MAX_BYTES as u128);
        match layout::nbytes(dtype, &shape) {
            Ok(n) => {
                let want = if shape.contains(&0) { 0 } else { exact.expect("accepted") };
                prop_assert_eq!(n as u128, want);
            }
            Err(e) => {
                prop_assert!(exact.is_none(), "refused {:?}: {}", shape, e);
                prop_assert!(matches!(e, Error::Memory(_)));
            }
        }
        // A fresh tensor is the same answer, or the allocator's refusal.
        if exact.is_some_and(|n| n <= 1 << 16) {
            let t = Tensor::zeros(dtype, &shape).unwrap();
            prop_assert_eq!(t.shape(), shape.as_slice());
        } else if exact.is_none() {
            prop_assert!(Tensor::uninit(dtype, &shape).is_err());
        }
    }

    #[test]
    fn views_stay_inside_their_buffer(
        shape in prop::collection::vec(prop_oneof![0usize..4, length()], 0..4),
        strides in prop::collection::vec(
            prop_oneof![-24isize..=24, any::<isize>(), Just(isize::MIN), Just(isize::MAX)],
            0..4,
        ),
        offset in prop_oneof![0usize..64, any::<usize>()],
    ) {
        let base = Tensor::zeros(DType::Float64, &[8]).unwrap();
        let Ok(view) = base.view(&shape, &strides, offset) else {
            return Ok(());
        };
        // Accepted: every element lies in the 64 bytes (few enough to list).
        prop_assert!(view.len() <= 8 || view.strides().contains(&0) || view.is_empty());
        let (dims, steps): (Dims, Strides) = (view.shape().into(), view.strides().into());
        let mut index = vec![0usize; dims.len()];
        for _ in 0..view.len().min(4096) {
            let at = view.offset() as isize
                + index.iter().zip(&steps).map(|(&i, &s)| i as isize * s).sum::<isize>();
            prop_assert!((0..=56).contains(&at), "element at byte {}", at);
            for d in (0..dims.len()).rev() {
                index[d] += 1;
                if index[d] < dims[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}

/// What `make fuzz` found: C order was checked before the extent, and the
/// stride product of a `2^60`-element float64 axis overflowed.
#[test]
fn a_view_whose_stride_product_overflows_is_refused() {
    let base = Tensor::zeros(DType::Float64, &[8]).unwrap();
    for shape in [[1usize << 60], [usize::MAX]] {
        assert!(base.view(&shape, &[8], 0).is_err());
    }
    assert!(base.view(&[1 << 60, 2], &[-8, 8], 0).is_err());
}
