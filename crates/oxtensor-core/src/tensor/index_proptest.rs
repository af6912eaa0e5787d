//! Property: slice arithmetic. Any `i64` bounds and steps (including
//! `i64::MIN`, whose negation overflows) resolve to the indices Python's
//! `range(*slice.indices(len))` takes, all inside the axis.

use super::index::{resolve_slice, wrap_index};
use proptest::prelude::*;

fn bound() -> impl Strategy<Value = Option<i64>> {
    prop::option::of(prop_oneof![
        -12i64..12,
        Just(i64::MIN),
        Just(i64::MAX),
        Just(i64::MIN + 1),
        any::<i64>(),
    ])
}

/// `slice(start, stop, step).indices(len)` and the range it gives, in
/// Python's own terms (CPython's `PySlice_AdjustIndices`), in `i128`.
fn python(len: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<usize> {
    let (n, step) = (len as i128, step as i128);
    let adjust = |v: Option<i64>, default: i128| {
        let Some(v) = v else { return default };
        let v = v as i128;
        if v < 0 {
            (v + n).max(if step < 0 { -1 } else { 0 })
        } else {
            v.min(if step < 0 { n - 1 } else { n })
        }
    };
    let first = adjust(start, if step < 0 { n - 1 } else { 0 });
    let last = adjust(stop, if step < 0 { -1 } else { n });
    let mut out = Vec::new();
    let mut i = first;
    while (step > 0 && i < last) || (step < 0 && i > last) {
        out.push(i as usize);
        i += step;
    }
    out
}

proptest! {
    #[test]
    fn slices_take_pythons_indices(
        len in prop_oneof![0usize..40, Just(1usize << 40)],
        start in bound(),
        stop in bound(),
        step in bound(),
    ) {
        let got = resolve_slice(len, start, stop, step);
        if step == Some(0) {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let r = got.unwrap();
        let want_count = if len > 40 { None } else { Some(python(len, start, stop, step.unwrap_or(1))) };
        let taken: Vec<usize> = (0..r.count.min(64))
            .map(|k| (r.start as i128 + k as i128 * r.step as i128) as usize)
            .collect();
        prop_assert!(taken.iter().all(|&i| i < len), "{:?} outside {}", taken, len);
        if let Some(want) = want_count {
            prop_assert_eq!(r.count, want.len());
            prop_assert_eq!(&taken, &want);
        }
    }

    #[test]
    fn integer_indices_wrap_or_are_refused(len in 0usize..50, i in any::<i64>()) {
        let n = len as i128;
        let j = if i < 0 { i as i128 + n } else { i as i128 };
        match wrap_index(i, len, 0) {
            Ok(k) => prop_assert_eq!(k as i128, j),
            Err(_) => prop_assert!(j < 0 || j >= n),
        }
    }
}
