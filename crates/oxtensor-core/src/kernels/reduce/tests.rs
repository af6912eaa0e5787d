use super::*;
use crate::tensor::Scalar;

#[test]
fn all_and_any_read_bool_bytes_as_nonzero() {
    // Columns: all nonzero bytes, one zero, all zero.
    let bytes = vec![2, 0x80, 0, 0xff, 0, 0, 7, 3, 0];
    let t = Tensor::from_bytes(DType::Bool, vec![3, 3], bytes).unwrap();
    let run = |kind, axes: &[usize]| {
        let r = reduced(kind, &t, axes, DType::Bool);
        assert!(r.to_c_bytes().unwrap().iter().all(|&b| b <= 1));
        (0..r.len()).map(|i| r.get(i)).collect::<Vec<_>>()
    };
    let b = |v: &[bool]| v.iter().map(|&x| Scalar::Bool(x)).collect::<Vec<_>>();
    assert_eq!(run(ReduceKind::All, &[0]), b(&[true, false, false]));
    assert_eq!(run(ReduceKind::Any, &[0]), b(&[true, true, false]));
    assert_eq!(run(ReduceKind::All, &[1]), b(&[false, false, false]));
    assert_eq!(run(ReduceKind::Any, &[0, 1]), b(&[true]));
    assert_eq!(
        run(ReduceKind::All, &[]),
        b(&[true, true, false, true, false, false, true, true, false])
    );
}

/// `kind` of `t` over `axes`, computed and returned in `dtype`.
fn reduced(kind: ReduceKind, t: &Tensor, axes: &[usize], dtype: DType) -> Tensor {
    reduce(kind, t, axes, dtype, dtype, None).unwrap()
}

/// Asserts `a` and `b` within 1e-9 relative to `a` (absolute below 1),
/// naming `case` (the float32 paths' tests).
pub(super) fn close(a: &[f64], b: &[f64], case: &str) {
    assert_eq!(a.len(), b.len(), "{case}");
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            "{case}: {x} vs {y}"
        );
    }
}

fn m() -> Tensor {
    Tensor::from_vec(vec![2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]).unwrap()
}

#[test]
fn sums_over_each_axis() {
    let s0 = reduce(
        ReduceKind::Sum,
        &m(),
        &[0],
        DType::Float64,
        DType::Float64,
        None,
    )
    .unwrap();
    assert_eq!(s0.shape(), &[3]);
    assert_eq!(s0.get(2), Scalar::Float(9.0, DType::Float64));
    let s1 = reduce(
        ReduceKind::Sum,
        &m(),
        &[1],
        DType::Float64,
        DType::Float64,
        None,
    )
    .unwrap();
    assert_eq!(s1.get(1), Scalar::Float(15.0, DType::Float64));
    let all = reduce(
        ReduceKind::Max,
        &m(),
        &[0, 1],
        DType::Float64,
        DType::Float64,
        None,
    )
    .unwrap();
    assert_eq!(all.get(0), Scalar::Float(6.0, DType::Float64));
    let t = m().view(&[3, 2], &[8, 24], 0).unwrap();
    let s = reduced(ReduceKind::Sum, &t, &[1], DType::Float64);
    assert_eq!(s.get(0), Scalar::Float(5.0, DType::Float64));
}

#[test]
fn parallel_paths_match_exact_sums() {
    // 600x600 int64 is above the parallel threshold; integers make the
    // result independent of summation order.
    let (r, c) = (600usize, 600usize);
    let data: Vec<i64> = (0..(r * c) as i64).map(|v| v % 97 - 40).collect();
    let t = Tensor::from_vec(vec![r, c], data.clone()).unwrap();
    let col = |j: usize| (0..r).map(|i| data[i * c + j]).sum::<i64>();
    let row = |i: usize| data[i * c..(i + 1) * c].iter().sum::<i64>();
    let s0 = reduced(ReduceKind::Sum, &t, &[0], DType::Int64);
    assert!((0..c).all(|j| s0.get(j) == Scalar::Int(col(j))));
    let s1 = reduced(ReduceKind::Sum, &t, &[1], DType::Int64);
    assert!((0..r).all(|i| s1.get(i) == Scalar::Int(row(i))));
    let all = reduced(ReduceKind::Sum, &t, &[0, 1], DType::Int64);
    assert_eq!(all.get(0), Scalar::Int(data.iter().sum()));
    let max = reduced(ReduceKind::Max, &t, &[0, 1], DType::Int64);
    assert_eq!(max.get(0), Scalar::Int(56));
}

/// Sum of a 2-d tensor over `axes` by the plain index loop.
fn reference_sum(t: &Tensor, axes: &[usize]) -> Vec<f64> {
    let (r, c) = (t.shape()[0], t.shape()[1]);
    let at = |i: usize, j: usize| match t.get(i * c + j) {
        Scalar::Float(v, _) => v,
        other => panic!("not a float: {other:?}"),
    };
    match axes {
        [0] => (0..c).map(|j| (0..r).map(|i| at(i, j)).sum()).collect(),
        [1] => (0..r).map(|i| (0..c).map(|j| at(i, j)).sum()).collect(),
        _ => vec![(0..r)
            .flat_map(|i| (0..c).map(move |j| (i, j)))
            .map(|(i, j)| at(i, j))
            .sum()],
    }
}

#[test]
fn row_blocks_and_splits_match_the_reference_loop() {
    // Small integers in float64 make every summation order exact.
    // 1003 rows: not a multiple of the 4-row blocks; 1003x301 is above
    // the parallel threshold, so the splits run too.
    let (r, c) = (1003usize, 301usize);
    let data: Vec<f64> = (0..r * c).map(|v| (v % 13) as f64 - 6.0).collect();
    let full = Tensor::from_vec(vec![r, c], data).unwrap();
    let transposed = full.view(&[c, r], &[8, 8 * c as isize], 0).unwrap();
    // Every other column: rows are not contiguous.
    let strided = full.view(&[r, c / 2], &[8 * c as isize, 16], 8).unwrap();
    let small = full.view(&[7, 5], &[8 * c as isize, 8], 0).unwrap();
    let empty = Tensor::zeros(DType::Float64, &[0, 4]).unwrap();
    for (name, t) in [
        ("contiguous", &full),
        ("transposed", &transposed),
        ("strided", &strided),
        ("small", &small),
        ("empty", &empty),
    ] {
        for axes in [&[0][..], &[1], &[0, 1]] {
            let got = reduced(ReduceKind::Sum, t, axes, DType::Float64);
            let got: Vec<f64> = (0..got.len())
                .map(|i| match got.get(i) {
                    Scalar::Float(v, _) => v,
                    other => panic!("not a float: {other:?}"),
                })
                .collect();
            assert_eq!(got, reference_sum(t, axes), "{name} over {axes:?}");
        }
    }
}

/// Column `max`/`min` (rows four at a time, `FloatExtreme::four`)
/// against folding each column in order: NaNs in every position of a
/// group of four and in the leftover rows, signed zeros tied in both
/// orders (the earlier one stays), infinities; float64 and float32,
/// above the parallel threshold and below it.
#[test]
fn column_extremes_match_the_in_order_fold() {
    for (r, c) in [(1003usize, 301usize), (9, 7)] {
        let mut data: Vec<f64> = (0..r * c)
            .map(|v| ((v * 7919) % 31) as f64 - 15.0)
            .collect();
        for (row, col) in [(0, 0), (1, 1), (2, 2), (3, 3), (r - 1, 4), (5, 5), (6, 5)] {
            data[row * c + col] = f64::NAN;
        }
        for row in 0..r {
            data[row * c + 6] = if row % 2 == 0 { 0.0 } else { -0.0 };
        }
        data[c + 6] = -0.0;
        data[(r / 2) * c + 1] = f64::INFINITY;
        data[(r / 2) * c + 2] = f64::NEG_INFINITY;
        let t = Tensor::from_vec(vec![r, c], data.clone()).unwrap();
        for (kind, min) in [(ReduceKind::Max, false), (ReduceKind::Min, true)] {
            let want: Vec<f64> = (0..c)
                .map(|j| {
                    let start = if min {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    };
                    let f = FloatExtreme::<false>;
                    let g = FloatExtreme::<true>;
                    (0..r).fold(start, |acc, i| match min {
                        true => g.one(acc, data[i * c + j]),
                        false => f.one(acc, data[i * c + j]),
                    })
                })
                .collect();
            for dtype in [DType::Float64, DType::Float32] {
                let got = reduce(
                    kind,
                    &cast::cast(&t, dtype).unwrap(),
                    &[0],
                    dtype,
                    DType::Float64,
                    None,
                );
                let got = got.unwrap();
                let got = got.as_slice::<f64>().unwrap();
                for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                    let same = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
                    assert!(same, "{kind:?} {dtype} {r}x{c} column {j}: {g} against {w}");
                }
            }
        }
    }
}

#[test]
fn long_rows_use_lanes() {
    let t = Tensor::from_vec(vec![1, 1000], (0..1000).map(|v| v as i64).collect()).unwrap();
    let s = reduced(ReduceKind::Sum, &t, &[1], DType::Int64);
    assert_eq!(s.get(0), Scalar::Int(499500));
    let e = Tensor::zeros(DType::Float64, &[0, 3]).unwrap();
    assert!(reduce(
        ReduceKind::Max,
        &e,
        &[0],
        DType::Float64,
        DType::Float64,
        None
    )
    .is_err());
    let z = reduced(ReduceKind::Prod, &e, &[0], DType::Float64);
    assert_eq!(z.get(0), Scalar::Float(1.0, DType::Float64));
}

#[test]
fn complex_max_and_min_are_lexicographic() {
    let c = |re: f64, im: f64| Complex::new(re, im);
    let t = Tensor::from_vec(
        vec![4],
        vec![c(1.0, 5.0), c(2.0, -1.0), c(2.0, 3.0), c(-4.0, 9.0)],
    )
    .unwrap();
    let max = reduce(
        ReduceKind::Max,
        &t,
        &[0],
        DType::Complex128,
        DType::Complex128,
        None,
    );
    let min = reduce(
        ReduceKind::Min,
        &t,
        &[0],
        DType::Complex128,
        DType::Complex128,
        None,
    );
    assert_eq!(
        max.unwrap().get(0),
        Scalar::Complex(2.0, 3.0, DType::Complex128)
    );
    assert_eq!(
        min.unwrap().get(0),
        Scalar::Complex(-4.0, 9.0, DType::Complex128)
    );
}

#[test]
fn empty_max_raises_whenever_the_reduced_axes_are_empty() {
    // (shape, axes, raises), as NumPy decides.
    let cases: [(&[usize], &[usize], bool); 5] = [
        (&[0, 0], &[1], true),
        (&[0, 3], &[0], true),
        (&[3, 0], &[0], false),
        (&[0, 3], &[1], false),
        (&[2, 0], &[0, 1], true),
    ];
    for (shape, axes, raises) in cases {
        let t = Tensor::zeros(DType::Float64, shape).unwrap();
        let got = reduce(
            ReduceKind::Min,
            &t,
            axes,
            DType::Float64,
            DType::Float64,
            None,
        );
        assert_eq!(got.is_err(), raises, "min of {shape:?} over {axes:?}");
    }
}

#[test]
fn last_axes_paths_match_the_general_walk() {
    // The same values contiguous (the lane path when there are enough
    // lanes) and as every other column of a wider tensor (the walk).
    for (rows, n) in [(40, 3), (40, 100), (67, 1003), (5, 40)] {
        let mut wide: Vec<f64> = (0..rows * 2 * n)
            .map(|i| ((i * 29) % 41) as f64 - 20.0)
            .collect();
        wide[2 * 2 * n + 4] = f64::NAN; // lane 2, element 2
        wide[(rows - 1) * 2 * n + 2 * (n - 1)] = f64::NAN; // last lane, last element
        let narrow: Vec<f64> = wide.iter().step_by(2).copied().collect();
        let c = Tensor::from_vec(vec![rows, n], narrow).unwrap();
        let w = Tensor::from_vec(vec![rows, 2 * n], wide).unwrap();
        let strided = w.view(&[rows, n], &[16 * n as isize, 16], 0).unwrap();
        for kind in [ReduceKind::Max, ReduceKind::Min, ReduceKind::Sum] {
            let run = |t: &Tensor| {
                let r = reduced(kind, t, &[1], DType::Float64);
                r.as_slice::<f64>().unwrap().to_vec()
            };
            let (fast, walk) = (run(&c), run(&strided));
            for (i, (a, b)) in fast.iter().zip(&walk).enumerate() {
                assert!(
                    a == b || (a.is_nan() && b.is_nan()),
                    "{kind:?} {rows}x{n} lane {i}: {a} vs {b}"
                );
            }
            assert!(fast[2].is_nan() && fast[rows - 1].is_nan());
        }
    }
}

#[test]
fn bitwise_folds_of_integers_and_bools() {
    let t = Tensor::from_vec(vec![2, 3], vec![0b0110i8, -1, 5, 0b0011, 0, 4]).unwrap();
    let run = |kind, axes: &[usize], t: &Tensor| {
        let r = reduce(kind, t, axes, t.dtype(), t.dtype(), None).unwrap();
        (0..r.len()).map(|i| r.get(i)).collect::<Vec<_>>()
    };
    let i = |v: &[i8]| v.iter().map(|&x| Scalar::Int(x.into())).collect::<Vec<_>>();
    assert_eq!(run(ReduceKind::BitAnd, &[0], &t), i(&[0b0010, 0, 4]));
    assert_eq!(run(ReduceKind::BitOr, &[1], &t), i(&[-1, 0b0111]));
    assert_eq!(
        run(ReduceKind::BitXor, &[0, 1], &t),
        i(&[0b0110 ^ -1 ^ 5 ^ 0b0011 ^ 4])
    );
    // Empty folds give the identities: every bit set for `and_`, none else.
    let empty = Tensor::from_vec(vec![2, 0], Vec::<u8>::new()).unwrap();
    let got = reduced(ReduceKind::BitAnd, &empty, &[1], DType::UInt8);
    assert_eq!(got.get(0), Scalar::UInt(255));
    let bools = Tensor::from_bytes(DType::Bool, vec![4], vec![1, 2, 0, 1]).unwrap();
    let x = reduced(ReduceKind::BitXor, &bools, &[0], DType::Bool);
    assert_eq!(x.get(0), Scalar::Bool(true));
    let floats = reduce(
        ReduceKind::BitOr,
        &m(),
        &[0],
        DType::Float64,
        DType::Float64,
        None,
    );
    assert!(floats.is_err_and(|e| e.to_string().contains("bits of integers")));
}
