use super::*;

/// `argmax` of `t` over `axes`, as a vector (also `argmax_split`'s).
pub(in crate::kernels) fn rows(t: &Tensor, axes: &[usize]) -> Vec<i64> {
    argmax(t, axes, None)
        .unwrap()
        .as_slice::<i64>()
        .unwrap()
        .to_vec()
}

/// NumPy's answer for one lane: the first NaN, else the first maximum.
pub(in crate::kernels) fn reference(x: &[f64]) -> i64 {
    if let Some(i) = x.iter().position(|v| v.is_nan()) {
        return i as i64;
    }
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    x.iter().position(|&v| v == m).unwrap_or(0) as i64
}

#[test]
fn odd_lengths_nan_and_infinities_match_the_reference() {
    // Float spans hold 1024 float64 or 2048 float32 (`FLOAT_SPAN_BYTES`).
    for n in [
        1, 2, 15, 16, 17, 33, 100, 511, 512, 513, 1001, 1537, 2049, 4200,
    ] {
        let base: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64).collect();
        let rising: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let mut lanes = vec![base.clone(), vec![f64::NEG_INFINITY; n], rising];
        for at in [0, n / 2, n - 1] {
            let mut v = base.clone();
            v[at] = f64::NAN;
            v[n - 1 - at] = f64::NAN;
            lanes.push(v);
            let mut w = vec![f64::NEG_INFINITY; n];
            w[at] = f64::INFINITY;
            lanes.push(w);
        }
        for lane in lanes {
            let t = Tensor::from_vec(vec![1, n], lane.clone()).unwrap();
            let avx2 = has_avx2();
            assert_eq!(
                argmax_lane::<f64, false>(&lane, false),
                reference(&lane),
                "{lane:?}"
            );
            assert_eq!(
                argmax_lane::<f64, false>(&lane, avx2),
                reference(&lane),
                "{lane:?}"
            );
            assert_eq!(
                argmax_lane_float::<f64, false>(&lane, avx2),
                reference(&lane),
                "{lane:?}"
            );
            assert_eq!(rows(&t, &[1]), vec![reference(&lane)], "{lane:?}");
            // The same values (all exact in float32) as float32.
            let narrow: Vec<f32> = lane.iter().map(|&v| v as f32).collect();
            assert_eq!(
                argmax_lane_float::<f32, false>(&narrow, avx2),
                reference(&lane),
                "float32 {lane:?}"
            );
        }
    }
}

#[test]
fn lanes_of_nans_zeros_and_ties_match_the_reference() {
    // Lanes of several lengths: NaNs first, middle and last, -0 against
    // +0, all-equal lanes and lanes of -inf.
    for n in [1, 7, 8, 9, 511, 512, 513, 1100] {
        let mut lanes: Vec<Vec<f64>> = Vec::new();
        for k in 0..11 {
            let mut v: Vec<f64> = (0..n).map(|i| ((i * 31 + k * 7) % 17) as f64).collect();
            match k {
                1 => v[0] = f64::NAN,
                2 => v[n / 2] = f64::NAN,
                3 => v[n - 1] = f64::NAN,
                4 => v.fill(-0.0),
                5 => v.iter_mut().step_by(2).for_each(|x| *x = 0.0),
                6 => v.fill(f64::NEG_INFINITY),
                7 => v.fill(2.5),
                8 => {
                    v[n - 1] = f64::NAN;
                    v[n / 3] = f64::NAN;
                }
                _ => {}
            }
            lanes.push(v);
        }
        let flat: Vec<f64> = lanes.concat();
        let want: Vec<i64> = lanes.iter().map(|l| reference(l)).collect();
        let t = Tensor::from_vec(vec![lanes.len(), n], flat.clone()).unwrap();
        assert_eq!(rows(&t, &[1]), want, "n={n}");
        for avx2 in [false, has_avx2()] {
            for (l, &w) in lanes.iter().zip(&want) {
                assert_eq!(argmax_lane_float::<f64, false>(l, avx2), w, "n={n} {avx2}");
            }
        }
        // Columns: the lanes copied to contiguous rows first.
        let tt = t.view(&[n, lanes.len()], &[8, 8 * n as isize], 0).unwrap();
        assert_eq!(rows(&tt, &[0]), want, "columns, n={n}");
    }
}

#[test]
fn integer_float32_and_bool_lanes() {
    let ints: Vec<i32> = (0..37).map(|i| (i * 7) % 19).collect();
    let want = ints.iter().position(|&v| v == 18).unwrap() as i64;
    assert_eq!(argmax_lane::<_, false>(&ints, has_avx2()), want);
    let mut f: Vec<f32> = (0..37).map(|i| i as f32).collect();
    f[20] = f32::NAN;
    assert_eq!(argmax_lane::<_, false>(&f, has_avx2()), 20);
    let b = [false, false, true, true];
    assert_eq!(argmax_lane::<_, false>(&b, has_avx2()), 2);
}

#[test]
fn columns_of_a_strided_view_and_empty_lanes() {
    // 3x4, then every other column: a non-contiguous 3x2 view.
    let t = Tensor::from_vec(
        vec![3, 4],
        vec![
            1.0,
            9.0,
            5.0,
            0.0,
            7.0,
            3.0,
            5.0,
            2.0,
            7.0,
            8.0,
            f64::NAN,
            4.0,
        ],
    )
    .unwrap();
    let v = t.view(&[3, 2], &[32, 16], 0).unwrap();
    assert_eq!(rows(&v, &[0]), vec![1, 2]);
    assert_eq!(rows(&v, &[1]), vec![1, 0, 1]);
    assert_eq!(rows(&v, &[0, 1]), vec![5]);
    let empty = Tensor::zeros(DType::Float64, &[2, 0]).unwrap();
    assert!(argmax(&empty, &[1], None).is_err());
    assert_eq!(
        rows(&Tensor::zeros(DType::Float64, &[0, 3]).unwrap(), &[1]),
        vec![]
    );
}

#[test]
fn argmin_is_argmax_of_the_negated_values() {
    // Row groups, single lanes, columns and one long split lane; NaNs,
    // -0 against +0 and infinities.
    for (rows_n, n) in [(7, 513), (1, 1 << 20), (5, 17)] {
        let mut v: Vec<f64> = (0..rows_n * n).map(|i| ((i * 31) % 97) as f64).collect();
        v[n / 2] = f64::NAN;
        v[(rows_n - 1) * n + n / 3] = -0.0;
        v[rows_n * n - 1] = f64::NEG_INFINITY;
        let neg: Vec<f64> = v.iter().map(|a| -a).collect();
        let t = Tensor::from_vec(vec![rows_n, n], v).unwrap();
        let tn = Tensor::from_vec(vec![rows_n, n], neg).unwrap();
        for axes in [&[1][..], &[0], &[0, 1]] {
            let got = argmin(&t, axes, None).unwrap();
            assert_eq!(
                got.as_slice::<i64>().unwrap(),
                rows(&tn, axes),
                "{axes:?} n={n}"
            );
        }
    }
    let ints = Tensor::from_vec(vec![2, 5], vec![3i16, -7, 2, -7, 9, 0, 0, 1, -1, -1]).unwrap();
    assert_eq!(
        argmin(&ints, &[1], None)
            .unwrap()
            .as_slice::<i64>()
            .unwrap(),
        [1, 3]
    );
    let empty = Tensor::zeros(DType::Float32, &[0]).unwrap();
    let err = argmin(&empty, &[0], None).unwrap_err().to_string();
    assert!(err.contains("argmin of an empty sequence"), "{err}");
}
