//! Property: runtime broadcasting. Any shapes, including lengths whose
//! product passes 2^64 (zero-stride views can have them), broadcast as
//! NumPy's rule says, or are refused as incompatible (`Shape`) or as too
//! big to exist (`Memory`), never by a wrapped-around size.

use super::broadcast_shapes;
use crate::error::Error;
use proptest::prelude::*;

fn length() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 0usize..4,
        1 => (1u32..63).prop_map(|p| 1usize << p),
        1 => Just(274177usize),
        1 => Just(67280421310721usize),
        1 => any::<usize>(),
    ]
}

/// NumPy's rule, written out: right-aligned, 1 stretches, else equal.
fn reference(shapes: &[Vec<usize>]) -> Option<Vec<usize>> {
    let ndim = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![1usize; ndim];
    for s in shapes {
        for (k, &n) in s.iter().rev().enumerate() {
            let o = &mut out[ndim - 1 - k];
            match (*o, n) {
                (1, n) => *o = n,
                (_, 1) => {}
                (a, b) if a == b => {}
                _ => return None,
            }
        }
    }
    Some(out)
}

proptest! {
    #[test]
    fn broadcasts_as_numpy_or_refuses(
        shapes in prop::collection::vec(prop::collection::vec(length(), 0..4), 1..4),
    ) {
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let got = broadcast_shapes(&refs);
        match reference(&shapes) {
            None => prop_assert!(matches!(got, Err(Error::Shape(_))), "{:?}", got),
            Some(want) => {
                let fits = want
                    .iter()
                    .filter(|&&d| d != 0)
                    .try_fold(1u128, |a, &d| a.checked_mul(d as u128))
                    .is_some_and(|n| n <= isize::MAX as u128);
                match got {
                    Ok(dims) => {
                        prop_assert!(fits);
                        prop_assert_eq!(dims.as_slice(), want.as_slice());
                    }
                    Err(e) => {
                        prop_assert!(!fits, "{:?} refused: {}", want, e);
                        prop_assert!(matches!(e, Error::Memory(_)));
                    }
                }
            }
        }
    }
}
