//! Tests of the solvers' kernels: LAPACK's pivots, structured and
//! triangular solves, NaNs where a system has no unique solution.

use super::*;

fn floats(t: &Tensor) -> Vec<f64> {
    let t = to_contiguous(&cast::cast(t, DType::Float64).unwrap()).unwrap();
    t.as_slice::<f64>().unwrap().to_vec()
}

fn ints(t: &Tensor) -> Vec<i64> {
    let t = to_contiguous(&cast::cast(t, DType::Int64).unwrap()).unwrap();
    t.as_slice::<i64>().unwrap().to_vec()
}

/// LAPACK's pivots and packed factors of a matrix that needs row
/// swaps, worked out by hand: `a[p_inv] = L U`.
#[test]
fn lu_factor_gives_lapack_pivots() {
    let a = Tensor::from_vec(vec![3, 3], vec![1.0f64, 2., 0., 4., 1., 1., 2., 8., 2.]).unwrap();
    let out = lu_factor(&a, DType::Float64).unwrap();
    // Step 0 takes row 1 (|4|), step 1 row 2 (|7.5| against |1.75|).
    assert_eq!(ints(&out[1]), vec![1, 2, 2]);
    assert_eq!(out[1].dtype(), DType::Int32);
    let p_inv = ints(&pivots_to_permutation(&out[1], true).unwrap());
    assert_eq!(p_inv, vec![1, 2, 0]);
    assert_eq!(
        ints(&pivots_to_permutation(&out[1], false).unwrap()),
        vec![2, 0, 1]
    );
    let lu = floats(&out[0]);
    let rows = floats(&a);
    for i in 0..3 {
        for j in 0..3 {
            let dot: f64 = (0..3)
                .map(|k| {
                    let l = match i.cmp(&k) {
                        std::cmp::Ordering::Greater => lu[i * 3 + k],
                        std::cmp::Ordering::Equal => 1.0,
                        std::cmp::Ordering::Less => 0.0,
                    };
                    let u = if k <= j { lu[k * 3 + j] } else { 0.0 };
                    l * u
                })
                .sum();
            let want = rows[p_inv[i] as usize * 3 + j];
            assert!((dot - want).abs() < 1e-12, "({i}, {j}): {dot} vs {want}");
        }
    }
    let singular = Tensor::zeros(DType::Float64, &[2, 2]).unwrap();
    let out = lu_factor(&singular, DType::Float64).unwrap();
    assert!(floats(&out[0]).iter().all(|v| v.is_nan()));
    let bad = Tensor::from_vec(vec![2], vec![0i32, 5]).unwrap();
    assert!(pivots_to_permutation(&bad, true).is_err());
}

#[test]
fn structured_and_triangular_solves() {
    // Upper triangle [[4, 2], [., 3]]: the lower one holds junk.
    let a = Tensor::from_vec(vec![2, 2], vec![4.0f64, 2., 99., 3.]).unwrap();
    let b = Tensor::from_vec(vec![2], vec![8.0f64, 7.]).unwrap();
    for s in [Structure::Symmetric, Structure::Positive] {
        // [[4, 2], [2, 3]] x = [8, 7]: x = [1.25, 1.5].
        let x = floats(&solve_structured(&a, &b, DType::Float64, s, false).unwrap());
        assert!(
            (x[0] - 1.25).abs() < 1e-12 && (x[1] - 1.5).abs() < 1e-12,
            "{s:?}: {x:?}"
        );
    }
    let x = floats(&solve_triangular(&a, &b, DType::Float64, false, false).unwrap());
    assert!((x[1] - 7.0 / 3.0).abs() < 1e-12 && (x[0] - (8.0 - 14.0 / 3.0) / 4.0).abs() < 1e-12);
    let x = floats(&solve_triangular(&a, &b, DType::Float64, false, true).unwrap());
    assert_eq!(x, vec![8.0 - 14.0, 7.0]);
    // Not positive definite, singular, a zero on the diagonal: NaNs.
    let neg = Tensor::from_vec(vec![2, 2], vec![-1.0f64, 0., 0., 1.]).unwrap();
    let x = solve_structured(&neg, &b, DType::Float64, Structure::Positive, true).unwrap();
    assert!(floats(&x).iter().all(|v| v.is_nan()));
    let zero = Tensor::zeros(DType::Float64, &[2, 2]).unwrap();
    let x = solve_structured(&zero, &b, DType::Float64, Structure::General, false).unwrap();
    assert!(floats(&x).iter().all(|v| v.is_nan()));
    let x = solve_triangular(&zero, &b, DType::Float64, true, false).unwrap();
    assert!(floats(&x).iter().all(|v| v.is_nan()));
    let short = Tensor::zeros(DType::Float64, &[3]).unwrap();
    assert!(solve_triangular(&a, &short, DType::Float64, true, false).is_err());
}
