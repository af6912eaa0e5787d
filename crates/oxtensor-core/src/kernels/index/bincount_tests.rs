use super::*;
use crate::kernels::elemwise::cast::cast;
use crate::kernels::pseudo_random;

/// The bins by the definition, one value at a time, in float64.
fn naive(xs: &[i64], ws: Option<&[f64]>, minlength: usize) -> Vec<f64> {
    let len = xs.iter().map(|&v| v as usize + 1).max().unwrap_or(0);
    let mut bins = vec![0.0; len.max(minlength)];
    for (i, &v) in xs.iter().enumerate() {
        bins[v as usize] += ws.map_or(1.0, |ws| ws[i]);
    }
    bins
}

fn values(t: &Tensor) -> Vec<f64> {
    let t = cast(t, DType::Float64).unwrap();
    to_contiguous(&t)
        .unwrap()
        .as_slice::<f64>()
        .unwrap()
        .to_vec()
}

fn ints(n: usize, top: usize, seed: u64) -> Vec<i64> {
    let r = pseudo_random(n, seed);
    r.iter().map(|v| (v * top as f64) as i64).collect()
}

fn run(x: &Tensor, w: Option<&Tensor>, minlength: usize) -> Result<Tensor> {
    bincount(&mut Pool::default(), x, w, minlength)
}

#[test]
fn counts_every_integer_dtype() {
    let xs = vec![3i64, 0, 3, 7, 1, 3];
    let x64 = Tensor::from_vec(vec![xs.len()], xs.clone()).unwrap();
    for dtype in DType::ALL.into_iter().filter(|d| d.is_integer()) {
        for minlength in [0, 5, 12] {
            let got = run(&cast(&x64, dtype).unwrap(), None, minlength).unwrap();
            assert_eq!(got.dtype(), DType::Int64);
            assert_eq!(
                values(&got),
                naive(&xs, None, minlength),
                "{dtype} {minlength}"
            );
        }
    }
}

#[test]
fn weights_keep_their_dtype() {
    let xs = vec![2i64, 0, 2, 1];
    let x = Tensor::from_vec(vec![4], xs.clone()).unwrap();
    let ws = [0.25, -1.5, 3.0, 1e-3];
    let w64 = Tensor::from_vec(vec![4], ws.to_vec()).unwrap();
    for dtype in [DType::Float16, DType::Float32, DType::Float64] {
        let got = run(&x, Some(&cast(&w64, dtype).unwrap()), 0).unwrap();
        assert_eq!(got.dtype(), dtype);
        // Summed in float64 and rounded once, as NumPy's float64 result cast.
        let want = Tensor::from_vec(vec![3], naive(&xs, Some(&ws), 0)).unwrap();
        assert!(got.same_values(&cast(&want, dtype).unwrap()), "{dtype}");
    }
    // Integer weights wrap in their own width, as `inc_subtensor` would.
    let w8 = Tensor::from_vec(vec![4], vec![100i8, 1, 100, -7]).unwrap();
    let got = run(&x, Some(&w8), 0).unwrap();
    assert_eq!(got.dtype(), DType::Int8);
    assert!(got.same_values(&Tensor::from_vec(vec![3], vec![1i8, -7, -56]).unwrap()));
    let wu = Tensor::from_vec(vec![4], vec![u64::MAX, 5, 1, 9]).unwrap();
    let got = run(&x, Some(&wu), 0).unwrap();
    assert!(got.same_values(&Tensor::from_vec(vec![3], vec![5u64, 9, 0]).unwrap()));
}

#[test]
fn strided_and_reversed_inputs() {
    let xs: Vec<i32> = vec![4, 9, 1, 9, 4, 9, 0, 9];
    let base = Tensor::from_vec(vec![8], xs).unwrap();
    let every_other = base.view(&[4], &[8], 0).unwrap();
    assert_eq!(
        values(&run(&every_other, None, 0).unwrap()),
        naive(&[4, 1, 4, 0], None, 0)
    );
    let reversed = base.view(&[4], &[-8], 28).unwrap();
    let w = Tensor::from_vec(vec![8], (0..8).map(f64::from).collect()).unwrap();
    let w_strided = w.view(&[4], &[16], 8).unwrap();
    let got = run(&reversed, Some(&w_strided), 0).unwrap();
    assert_eq!(
        values(&got),
        naive(&[9, 9, 9, 9], Some(&[1.0, 3.0, 5.0, 7.0]), 0)
    );
}

#[test]
fn empty_inputs() {
    let x = Tensor::from_vec(vec![0], Vec::<u8>::new()).unwrap();
    assert_eq!(run(&x, None, 0).unwrap().shape(), &[0]);
    let w = Tensor::from_vec(vec![0], Vec::<f32>::new()).unwrap();
    let got = run(&x, Some(&w), 3).unwrap();
    assert_eq!((got.dtype(), values(&got)), (DType::Float32, vec![0.0; 3]));
}

#[test]
fn errors_name_the_values() {
    let x = Tensor::from_vec(vec![3], vec![1i16, -4, -2]).unwrap();
    let err = run(&x, None, 0).unwrap_err();
    assert!(matches!(err, Error::Index(_)), "{err:?}");
    assert!(
        err.to_string().contains("index -4 (x[1]) is out of bounds"),
        "{err}"
    );
    let w = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap();
    let err = run(
        &Tensor::from_vec(vec![3], vec![1u8, 2, 3]).unwrap(),
        Some(&w),
        0,
    )
    .unwrap_err();
    assert!(matches!(err, Error::Shape(_)), "{err:?}");
    assert!(
        err.to_string().contains("got 2 weights for 3 values"),
        "{err}"
    );
    let huge = Tensor::from_vec(vec![1], vec![u64::MAX]).unwrap();
    let err = run(&huge, None, 0).unwrap_err();
    assert!(err.to_string().contains(&u64::MAX.to_string()), "{err}");
    let wb = Tensor::from_vec(vec![3], vec![true; 3]).unwrap();
    let x3 = Tensor::from_vec(vec![3], vec![0i8; 3]).unwrap();
    assert!(matches!(run(&x3, Some(&wb), 0), Err(Error::Type(_))));
    let xf = Tensor::from_vec(vec![1], vec![1.0f64]).unwrap();
    assert!(matches!(run(&xf, None, 0), Err(Error::Type(_))));
}

#[test]
fn pieces_follow_length_and_bins() {
    let cases = [
        (100, 10, 1),
        (2 * PIECE_MIN - 1, 10, 1),
        (2 * PIECE_MIN, 10, 2),
        (4_000_000, 1000, MAX_PIECES),
        // Bins as many as the values: one piece.
        (4_000_000, 4_000_000, 1),
        (4_000_000, 200_000, 2),
    ];
    for (n, len, want) in cases {
        assert_eq!(pieces(n, len), want, "{n} values, {len} bins");
    }
}

#[test]
fn long_inputs_in_pieces_match_one_pass() {
    let n = 3 * PIECE_MIN + 17;
    let xs = ints(n, 1000, 3);
    let x = Tensor::from_vec(vec![n], xs.clone()).unwrap();
    assert!(pieces(n, 1000) > 1);
    assert_eq!(values(&run(&x, None, 0).unwrap()), naive(&xs, None, 0));
    // Weights that are small integers sum exactly in any order.
    let ws: Vec<f64> = ints(n, 16, 5).iter().map(|&v| v as f64 - 8.0).collect();
    let w = Tensor::from_vec(vec![n], ws.clone()).unwrap();
    assert_eq!(
        values(&run(&x, Some(&w), 0).unwrap()),
        naive(&xs, Some(&ws), 0)
    );
    // A negative value in a later piece is found and named.
    let mut bad = xs.clone();
    bad[n - 2] = -1;
    let err = run(&Tensor::from_vec(vec![n], bad).unwrap(), None, 0).unwrap_err();
    assert!(err.to_string().contains(&format!("x[{}]", n - 2)), "{err}");
}

#[test]
fn sampled_bins_are_a_lower_bound() {
    let sorted: Vec<i64> = (0..10_000).collect();
    assert_eq!(sampled_bins(&sorted), 10_000);
    assert_eq!(sampled_bins(&[-5i32, 3, -1]), 4);
    assert_eq!(sampled_bins(&[-5i8]), 0);
    assert_eq!(sampled_bins::<u16>(&[]), 0);
    assert_eq!(sampled_bins(&[u64::MAX]), usize::MAX);
    let mut xs = vec![3u32; 1000];
    xs[1] = 999;
    assert_eq!(sampled_bins(&xs), 4, "the sample skips x[1]");
    // The pass grows the bins for it.
    let got = run(&Tensor::from_vec(vec![1000], xs).unwrap(), None, 0).unwrap();
    assert_eq!(values(&got).len(), 1000);
}

#[test]
fn many_bins_are_counted_in_one_piece() {
    let n = 4 * PIECE_MIN;
    let xs = ints(n, 2 * n, 11);
    assert_eq!(pieces(n, sampled_bins(&xs)), 1);
    let x = Tensor::from_vec(vec![n], xs.clone()).unwrap();
    assert_eq!(values(&run(&x, None, 0).unwrap()), naive(&xs, None, 0));
}

#[test]
fn the_first_refused_value_in_x_is_reported() {
    let n = 4 * PIECE_MIN;
    let mut xs = ints(n, 50, 9);
    xs[n - 3] = -2;
    xs[PIECE_MIN + 5] = -9;
    // After a negative value, a value too large for any array is not reached.
    xs[PIECE_MIN + 6] = i64::MAX;
    let x = Tensor::from_vec(vec![n], xs).unwrap();
    assert!(pieces(n, 50) > 2);
    let err = run(&x, None, 0).unwrap_err();
    let want = format!("index -9 (x[{}])", PIECE_MIN + 5);
    assert!(err.to_string().contains(&want), "{err}");
    let big = Tensor::from_vec(vec![3], vec![1i64, i64::MAX, -1]).unwrap();
    let err = run(&big, None, 0).unwrap_err();
    assert!(matches!(err, Error::Value(_)), "{err:?}");
    assert!(
        err.to_string().contains("x[1] = 9223372036854775807"),
        "{err}"
    );
}

#[test]
fn impossible_minlength_is_an_error() {
    let x = Tensor::from_vec(vec![2], vec![1u8, 0]).unwrap();
    for minlength in [usize::MAX, MAX_BINS + 1] {
        let err = run(&x, None, minlength).unwrap_err();
        assert!(err
            .to_string()
            .contains(&format!("cannot allocate {minlength} bins")));
    }
}
