use super::*;

/// Pseudo-random values in `offset ± 0.5`.
fn values(n: usize, offset: f64, seed: u64) -> Vec<f64> {
    let r = crate::kernels::pseudo_random(n, seed);
    r.into_iter().map(|v| offset + v - 0.5).collect()
}

/// The two-pass formula per output, with compensated (Neumaier) sums so
/// the reference is more accurate than either side it checks.
fn reference(x: &[f64], shape: &[usize], axes: &[usize]) -> Vec<f64> {
    let nd = shape.len();
    let kept: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    let n_out: usize = kept.iter().map(|&a| shape[a]).product();
    let mut groups = vec![Vec::new(); n_out];
    for (i, &v) in x.iter().enumerate() {
        let (mut rest, mut key) = (i, 0);
        let mut coords = vec![0; nd];
        for a in (0..nd).rev() {
            coords[a] = rest % shape[a];
            rest /= shape[a];
        }
        for &a in &kept {
            key = key * shape[a] + coords[a];
        }
        groups[key].push(v);
    }
    let neumaier = |it: &mut dyn Iterator<Item = f64>| {
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for v in it {
            let t = s + v;
            c += if s.abs() >= v.abs() {
                (s - t) + v
            } else {
                (v - t) + s
            };
            s = t;
        }
        s + c
    };
    groups
        .iter()
        .map(|g| {
            let mean = neumaier(&mut g.iter().copied()) / g.len() as f64;
            neumaier(&mut g.iter().map(|v| (v - mean) * (v - mean)))
        })
        .collect()
}

fn tensor(shape: &[usize], data: Vec<f64>) -> Tensor {
    Tensor::from_vec(shape.to_vec(), data).unwrap()
}

fn close(got: &[f64], want: &[f64], rtol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= rtol * w.abs().max(1e-300) || (g.is_nan() && w.is_nan());
        assert!(ok, "element {i}: got {g}, want {w}");
    }
}

#[test]
fn lanes_and_columns_match_the_two_pass_formula() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[7], &[0]),
        (&[3, 5], &[1]),
        (&[3, 5], &[0]),
        (&[2, 3, 4], &[1, 2]),
        (&[2, 3, 4], &[0, 1]),
        (&[2, 3, 4], &[0, 1, 2]),
        (&[5, BLOCK + 3], &[1]),
        (&[3 * BLOCK + 1], &[0]),
        (&[BLOCK_ROWS * 3 + 5, 9], &[0]),
        (&[40, STRIP + 7], &[0]),
        (&[BLOCK_ROWS * 40 + 1, 20], &[0]),
    ];
    for &(shape, axes) in cases {
        let n: usize = shape.iter().product();
        let data = values(n, 3.0, n as u64);
        let t = tensor(shape, data.clone());
        let got = centred_squares(&t, axes, None).expect("a layout read in one pass");
        let want = reference(&data, shape, axes);
        close(got.as_slice::<f64>().unwrap(), &want, 1e-12);
    }
}

#[test]
fn one_long_lane_is_split_in_pieces_and_large_offsets_stay_accurate() {
    // Values 1e9 away from zero with a spread of 1: the one-pass
    // `Σx² - (Σx)²/n` would lose every digit here.
    let n = 2 * PIECE + 12_345;
    let data = values(n, 1e9, 7);
    let got = centred_squares(&tensor(&[n], data.clone()), &[0], None).unwrap();
    close(
        got.as_slice::<f64>().unwrap(),
        &reference(&data, &[n], &[0]),
        1e-12,
    );
    let (rows, cols) = (BLOCK_ROWS * 70 + 3, 33);
    let data = values(rows * cols, -1e9, 8);
    let got = centred_squares(&tensor(&[rows, cols], data.clone()), &[0], None).unwrap();
    close(
        got.as_slice::<f64>().unwrap(),
        &reference(&data, &[rows, cols], &[0]),
        1e-12,
    );
}

/// Columns whose later blocks sit far from the running mean: a steady
/// trend 1e9 from zero, a jump by 1e8 halfway down after constant rows,
/// and noise of 1e-3 around alternating -1e6 and 1e6. Blocks after the
/// first are summed once centred on the running mean (`centred_block`).
#[test]
fn columns_far_from_their_running_mean_stay_accurate() {
    let (rows, cols) = (BLOCK_ROWS + 5 * CENTRED_ROWS + 7, 19);
    let noise = values(rows * cols, 0.0, 9);
    let mut data = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let e = noise[r * cols + c];
            data[r * cols + c] = match c % 3 {
                0 => 1e9 + r as f64 + e,
                1 if r < rows / 2 => 5.0,
                1 => 1e8 + e,
                _ => (if r % 2 == 0 { -1e6 } else { 1e6 }) + 1e-3 * e,
            };
        }
    }
    for parts_of in [rows, rows / 3] {
        let shift = &data[..cols];
        let mut joined = Columns::new(cols);
        for r in (0..rows).step_by(parts_of) {
            let part = columns_part_fast(&data, shift, r..(r + parts_of).min(rows), has_avx2());
            joined.merge_at(0, part.n, &part.mean, &part.m2);
            joined.n += part.n;
        }
        close(&joined.m2, &reference(&data, &[rows, cols], &[0]), 1e-12);
    }
}

#[test]
fn avx2_and_baseline_builds_agree() {
    let data = values(BLOCK * 2 + 77, 0.5, 3);
    let (a, b) = (
        lane_moments(&data, 0.5),
        lane_moments_fast(&data, 0.5, has_avx2()),
    );
    assert!((a.m2 - b.m2).abs() <= 1e-12 * a.m2 && a.n == b.n);
    let (rows, cols) = (BLOCK_ROWS * 5 + 1, 70);
    let data = values(rows * cols, 0.5, 4);
    let shift = &data[..cols];
    let a = columns_part(&data, shift, 0..rows);
    let b = columns_part_fast(&data, shift, 0..rows, has_avx2());
    close(&b.m2, &a.m2, 1e-12);
}

#[test]
fn float32_is_widened_and_the_result_narrowed() {
    let data: Vec<f32> = values(3 * 1000, 10.0, 5)
        .iter()
        .map(|&v| v as f32)
        .collect();
    let wide: Vec<f64> = data.iter().map(|&v| f64::from(v)).collect();
    let t = Tensor::from_vec(vec![3, 1000], data).unwrap();
    for axes in [&[0usize][..], &[1]] {
        let got = centred_squares(&t, axes, None).unwrap();
        assert_eq!(got.dtype(), DType::Float32);
        let want: Vec<f32> = reference(&wide, &[3, 1000], axes)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let got = got.as_slice::<f32>().unwrap();
        let rel = |g: f32, w: f32| ((g - w) / w).abs();
        assert!(
            got.iter().zip(&want).all(|(&g, &w)| rel(g, w) <= 1e-6),
            "axes {axes:?}"
        );
    }
}

#[test]
fn nan_and_infinity_give_nan_like_the_two_pass_formula() {
    let mut data = values(4 * 6, 0.0, 6);
    data[7] = f64::NAN;
    data[13] = f64::INFINITY;
    let t = tensor(&[4, 6], data.clone());
    let got = centred_squares(&t, &[0], None).unwrap();
    close(
        got.as_slice::<f64>().unwrap(),
        &reference(&data, &[4, 6], &[0]),
        1e-12,
    );
    let got = centred_squares(&t, &[1], None).unwrap();
    close(
        got.as_slice::<f64>().unwrap(),
        &reference(&data, &[4, 6], &[1]),
        1e-12,
    );
}

#[test]
fn other_layouts_are_read_as_lanes_or_transposed_rows() {
    let data = values(2 * 3 * 40, 1.0, 1);
    let t = tensor(&[2, 3, 40], data.clone());
    for axes in [&[1usize][..], &[0, 2], &[1, 2], &[0]] {
        let got = centred_squares(&t, axes, None).unwrap();
        close(
            got.as_slice::<f64>().unwrap(),
            &reference(&data, &[2, 3, 40], axes),
            1e-12,
        );
    }
    // The same values F-ordered: `[40, 3, 2]` read backwards.
    let f = Tensor::from_vec(vec![40, 3, 2], transpose3(&data, [2, 3, 40])).unwrap();
    let f = f.view(&[2, 3, 40], &[8, 16, 48], 0).unwrap();
    for axes in [&[1usize, 2][..], &[2], &[0], &[0, 1, 2]] {
        let got = centred_squares(&f, axes, None).unwrap();
        let want = reference(&data, &[2, 3, 40], axes);
        close(got.as_slice::<f64>().unwrap(), &want, 1e-12);
        assert_eq!(
            got.shape(),
            &shape_without(&[2, 3, 40], axes)[..],
            "{axes:?}"
        );
    }
    let empty = tensor(&[0, 3], vec![]);
    assert!(
        centred_squares(&empty, &[0], None).is_none(),
        "nothing to reduce"
    );
    let ints = Tensor::from_vec(vec![4], vec![1i64, 2, 3, 4]).unwrap();
    assert!(centred_squares(&ints, &[0], None).is_none(), "not a float");
}

/// C-ordered `[a, b, c]` data laid out as C-ordered `[c, b, a]`.
fn transpose3(x: &[f64], [a, b, c]: [usize; 3]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..a {
        for j in 0..b {
            for k in 0..c {
                out[(k * b + j) * a + i] = x[(i * b + j) * c + k];
            }
        }
    }
    out
}

fn shape_without(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|a| !axes.contains(a))
        .map(|a| shape[a])
        .collect()
}
