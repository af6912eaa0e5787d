use super::*;
use crate::kernels::reduce::tests::close;

/// Pseudo-random float32 values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let r = crate::kernels::pseudo_random(n, seed);
    r.into_iter().map(|v| (v * 2.0 - 1.0) as f32).collect()
}

fn reduce_f32(t: &Tensor, axes: &[usize], kind: ReduceKind, acc: DType) -> Option<Tensor> {
    let kept: Vec<usize> = (0..t.ndim())
        .filter(|a| !axes.contains(a))
        .map(|a| t.shape()[a])
        .collect();
    let mut out = Tensor::uninit(acc, &kept).unwrap();
    reduce_mapped(kind, t, axes, &mut out).then_some(out)
}

/// Per output, the float64 sum of its values in index order.
fn sums(x: &[f32], shape: &[usize], axes: &[usize]) -> Vec<f64> {
    let (rows, cols) = split(shape, axes);
    let trailing = axes.contains(&(shape.len() - 1));
    (0..if trailing { rows } else { cols })
        .map(|o| match trailing {
            true => x[o * cols..(o + 1) * cols]
                .iter()
                .map(|&v| f64::from(v))
                .sum(),
            false => (0..rows).map(|r| f64::from(x[r * cols + o])).sum(),
        })
        .collect()
}

/// `(rows, cols)`: the product of the axes before the split and after.
fn split(shape: &[usize], axes: &[usize]) -> (usize, usize) {
    let at = if axes.contains(&(shape.len() - 1)) {
        shape.len() - axes.len()
    } else {
        axes.len()
    };
    (shape[..at].iter().product(), shape[at..].iter().product())
}

#[test]
fn float32_sums_widen_as_they_read() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[1000, 1100], &[1]),
        (&[1000, 1100], &[0]),
        (&[1000, 1100], &[0, 1]),
        (&[3, 700, 600], &[1, 2]),
        (&[3, 700, 600], &[0, 1]),
        (&[MIN_ELEMENTS + 7], &[0]),
    ];
    for &(shape, axes) in cases {
        let n: usize = shape.iter().product();
        let x = values(n, n as u64);
        let t = Tensor::from_vec(shape.to_vec(), x.clone()).unwrap();
        let got = reduce_f32(&t, axes, ReduceKind::Sum, DType::Float64).expect("taken");
        let want = sums(&x, shape, axes);
        let got = got.as_slice::<f64>().unwrap();
        close(&want, got, &format!("{shape:?} {axes:?}"));
    }
}

#[test]
fn all_and_any_of_floats_and_integers_read_nan_as_true() {
    let (rows, cols) = (1100, 1000);
    let mut x = vec![1.0f64; rows * cols];
    x[5 * cols + 7] = 0.0; // column 7 and row 5 have a zero
    x[9 * cols + 8] = f64::NAN; // NaN is true
    let t = Tensor::from_vec(vec![rows, cols], x.clone()).unwrap();
    let all0 = reduce_f32(&t, &[0], ReduceKind::All, DType::Bool).unwrap();
    let all0 = all0.as_slice::<bool>().unwrap();
    assert!(!all0[7] && all0[8] && all0.iter().filter(|&&b| !b).count() == 1);
    let all1 = reduce_f32(&t, &[1], ReduceKind::All, DType::Bool).unwrap();
    assert!(all1
        .as_slice::<bool>()
        .unwrap()
        .iter()
        .enumerate()
        .all(|(r, &b)| b == (r != 5)));
    let zeros = Tensor::from_vec(vec![rows, cols], vec![0i32; rows * cols]).unwrap();
    let any = reduce_f32(&zeros, &[0, 1], ReduceKind::Any, DType::Bool).unwrap();
    assert_eq!(any.as_slice::<bool>().unwrap(), &[false]);
    let mut one = vec![0.0f32; rows * cols];
    one[rows * cols - 1] = -0.5;
    let one = Tensor::from_vec(vec![rows, cols], one).unwrap();
    let any1 = reduce_f32(&one, &[1], ReduceKind::Any, DType::Bool).unwrap();
    let any1 = any1.as_slice::<bool>().unwrap();
    assert!(any1[rows - 1] && any1[..rows - 1].iter().all(|&b| !b));
    let neg_zero = Tensor::from_vec(vec![rows * cols], vec![-0.0f64; rows * cols]).unwrap();
    let any = reduce_f32(&neg_zero, &[0], ReduceKind::Any, DType::Bool).unwrap();
    assert_eq!(any.as_slice::<bool>().unwrap(), &[false], "-0.0 is false");
}

#[test]
fn other_layouts_and_small_inputs_keep_the_general_path() {
    let x = values(4 * 300_000, 3);
    let t = Tensor::from_vec(vec![4, 300_000], x).unwrap();
    assert!(reduce_f32(&t, &[0], ReduceKind::Sum, DType::Float64).is_some());
    let middle = Tensor::from_vec(vec![2, 600_000, 1], values(1_200_000, 4)).unwrap();
    assert!(reduce_f32(&middle, &[1], ReduceKind::Sum, DType::Float64).is_none());
    let transposed = t.view(&[300_000, 4], &[4, 1_200_000], 0).unwrap();
    assert!(reduce_f32(&transposed, &[0], ReduceKind::Sum, DType::Float64).is_none());
    let small = Tensor::from_vec(vec![100, 100], values(10_000, 5)).unwrap();
    assert!(reduce_f32(&small, &[1], ReduceKind::Sum, DType::Float64).is_none());
    let f64s = Tensor::zeros(DType::Float64, &[2000, 1000]).unwrap();
    assert!(
        reduce_f32(&f64s, &[1], ReduceKind::Sum, DType::Float64).is_none(),
        "not widening"
    );
}

#[test]
fn avx2_and_baseline_builds_agree() {
    let x = values(1 << 16, 9);
    let fold = Fold {
        init: 0.0f64,
        map: f64::from,
        f: |a: f64, b: f64| a + b,
        absorbing: None,
        _t: std::marker::PhantomData,
    };
    let plain = fold.lane(&x);
    assert_eq!(fast(has_avx2(), || fold.lane(&x)), plain);
}
