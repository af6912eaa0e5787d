//! Four inner products with one vector at a time, for a matrix × vector
//! over contiguous rows (`kernels/linalg/blas/matvec.rs`): each load of the vector
//! serves four rows, so a multiply-add needs 1.25 loads instead of 2, and
//! the four rows' independent lanes hide the latency of the multiply-adds
//! (fused where the CPU has FMA, as BLAS does); the rows are prefetched
//! ahead. One row at a
//! time (`inner::piece`) ran 2000² float64 at 0.63x NumPy's `dgemv`.

use super::inner::{prefetch, Inner};
use crate::kernels::cpu::{level, Level};

/// `[Σ rows[r][i] · x[i]]` for the four rows (each as long as `x`), in `L`
/// lanes per row, the lanes folded pairwise and the tail added last.
#[inline(always)]
fn four_body<T: Inner, const L: usize, const F: bool>(rows: [&[T]; 4], x: &[T]) -> [T; 4] {
    let mut acc = [[T::default(); L]; 4];
    let full = x.len() / L * L;
    let [r0, r1, r2, r3] = rows.map(|r| &r[..full]);
    let (c0, c1, c2, c3) = (
        r0.chunks_exact(L),
        r1.chunks_exact(L),
        r2.chunks_exact(L),
        r3.chunks_exact(L),
    );
    for ((((xs, a), b), c), d) in x[..full].chunks_exact(L).zip(c0).zip(c1).zip(c2).zip(c3) {
        // The hardware prefetcher alone does not keep four streams fed
        // (as for `inner::piece`); the vector stays in L1.
        for r in [a, b, c, d] {
            prefetch(r.as_ptr());
        }
        let step = |s: T, m: T, v: T| if F { m.fused(v, s) } else { s + m * v };
        for l in 0..L {
            acc[0][l] = step(acc[0][l], a[l], xs[l]);
            acc[1][l] = step(acc[1][l], b[l], xs[l]);
            acc[2][l] = step(acc[2][l], c[l], xs[l]);
            acc[3][l] = step(acc[3][l], d[l], xs[l]);
        }
    }
    let mut out = [T::default(); 4];
    for (r, lanes) in acc.iter_mut().enumerate() {
        let mut width = L;
        while width > 1 {
            width /= 2;
            for l in 0..width {
                lanes[l] = lanes[l] + lanes[l + width];
            }
        }
        let tail = rows[r][full..].iter().zip(&x[full..]);
        out[r] = tail.fold(lanes[0], |s, (&m, &v)| s + m * v);
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn four_avx512<T: Inner>(rows: [&[T]; 4], x: &[T]) -> [T; 4] {
    four_body::<T, 16, true>(rows, x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn four_avx2<T: Inner>(rows: [&[T]; 4], x: &[T]) -> [T; 4] {
    four_body::<T, 8, true>(rows, x)
}

/// The inner products of four rows with `x` (each row as long as `x`),
/// by the build `cpu::level` names (16 lanes in AVX-512, 8 otherwise:
/// the sums round differently from one build to another).
pub(super) fn four_rows<T: Inner>(rows: [&[T]; 4], x: &[T]) -> [T; 4] {
    assert!(rows.iter().all(|r| r.len() == x.len()), "rows as long as x");
    #[cfg(target_arch = "x86_64")]
    match level() {
        // SAFETY: `cpu::level` never names a build the CPU does not run.
        Level::Avx512 => return unsafe { four_avx512(rows, x) },
        // SAFETY: as above.
        Level::Avx2 => return unsafe { four_avx2(rows, x) },
        Level::Base => {}
    }
    four_body::<T, 8, false>(rows, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_rows_of_every_length_are_their_inner_products() {
        for k in [0, 1, 7, 8, 15, 16, 17, 33, 100] {
            let x: Vec<f64> = (0..k).map(|i| (i % 5) as f64 - 2.0).collect();
            let m: Vec<Vec<f64>> = (0..4)
                .map(|r| (0..k).map(|i| ((i * 3 + r) % 7) as f64 - 3.0).collect())
                .collect();
            let got = four_rows([&m[0], &m[1], &m[2], &m[3]], &x);
            for (r, &g) in got.iter().enumerate() {
                let want: f64 = m[r].iter().zip(&x).map(|(a, b)| a * b).sum();
                assert_eq!(g, want, "row {r} of length {k}");
            }
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let m32: Vec<Vec<f32>> = m
                .iter()
                .map(|r| r.iter().map(|&v| v as f32).collect())
                .collect();
            let got32 = four_rows([&m32[0], &m32[1], &m32[2], &m32[3]], &x32);
            assert_eq!(got32, got.map(|v| v as f32));
        }
    }
}
