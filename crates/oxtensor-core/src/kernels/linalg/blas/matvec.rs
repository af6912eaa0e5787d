//! A matrix times a vector in float32/float64 (`dot`/`matmul` where one
//! side is a vector): one pass over the matrix, split over threads by
//! output elements. Rows laid out contiguously make each output an inner
//! product (four rows at a time, `matvec_rows.rs`); columns laid out contiguously are
//! added up scaled, a block of outputs at a time. faer's product with one
//! column ran at 0.28x NumPy (OpenBLAS `dgemv`) on 2000² float64.

use super::gemv::try_matvec;
use super::inner::{piece, Inner};
use super::matvec_rows::four_rows;
use rayon::prelude::*;
use std::ops::{Add, Mul};

/// From this many multiply-adds, outputs are split over threads.
const PARALLEL_FLOPS: usize = 1 << 18;

/// Outputs per task of the inner-product form (rows of the matrix).
const DOT_ROWS: usize = 32;

/// Outputs per block of the scaled-sum form: a block of sums stays in L1
/// while every column's piece is added into it.
const AXPY_BLOCK: usize = 512;

/// The matrix read by [`matvec`]: `at(o, p)` is element `o·so + p·sp` from
/// `ptr`, for outputs `o` and the reduced dimension `p`.
#[derive(Clone, Copy)]
pub(super) struct Lhs<T> {
    pub(super) ptr: *const T,
    pub(super) so: isize,
    pub(super) sp: isize,
}

impl<T> Lhs<T> {
    /// The element at offset `off` (a method, so closures capture the
    /// whole `Sync` view rather than its raw pointer field).
    fn at(&self, off: isize) -> *const T {
        self.ptr.wrapping_offset(off)
    }
}

// SAFETY: a read-only view handed to worker threads for one call, while
// the caller keeps the memory alive and unchanged (`matvec`'s contract).
unsafe impl<T: Sync> Sync for Lhs<T> {}
// SAFETY: as for `Sync` above.
unsafe impl<T: Sync> Send for Lhs<T> {}

/// `y[o] = Σ_p m(o, p) · x[p·sx]` for `p < k`, when the layout suits one of
/// the two forms (`m`'s rows and `x` contiguous, or `m`'s columns
/// contiguous); `false`, writing nothing, otherwise.
///
/// # Safety
/// `m` must address `y.len()` × `k` elements with its strides, and `x`
/// must address `k` elements with stride `sx`, all valid for the call.
pub(super) unsafe fn matvec<T: Inner>(
    y: &mut [T],
    m: Lhs<T>,
    k: usize,
    x: (*const T, isize),
    threaded: bool,
) -> bool {
    let par = threaded && y.len() * k >= PARALLEL_FLOPS;
    if k == 0 || y.is_empty() {
        return false;
    }
    // A product that may use every core goes to the host's `?gemv` when
    // one serves inner products (as `gemm::product` sends matrix products).
    // SAFETY: the caller's contract, passed on unchanged.
    if par && unsafe { try_matvec(y, m, k, x) } {
        return true;
    }
    if m.sp == 1 && x.1 == 1 {
        // SAFETY: the caller's contract: `x` holds `k` contiguous elements.
        let xs = unsafe { std::slice::from_raw_parts(x.0, k) };
        by_rows(y, m, xs, par);
        return true;
    }
    if m.so == 1 {
        let xs = Strided(x.0, x.1);
        by_columns(y, m, k, xs, par);
        return true;
    }
    false
}

/// Each output the inner product of its contiguous row with `xs`.
fn by_rows<T: Inner>(y: &mut [T], m: Lhs<T>, xs: &[T], par: bool) {
    let avx2 = crate::kernels::cpu::has_avx2();
    let k = xs.len();
    // SAFETY: `o` < the output count and row `o` holds `k` contiguous
    // elements (`matvec`'s contract, `sp` = 1).
    let row = |o: usize| unsafe { std::slice::from_raw_parts(m.at(o as isize * m.so), k) };
    let rows = |(t, ys): (usize, &mut [T])| {
        let first = t * DOT_ROWS;
        let done = ys.len() / 4 * 4;
        let mut fours = ys.chunks_exact_mut(4);
        for (q, out) in (&mut fours).enumerate() {
            let o = first + 4 * q;
            out.copy_from_slice(&four_rows([o, o + 1, o + 2, o + 3].map(row), xs));
        }
        for (i, out) in fours.into_remainder().iter_mut().enumerate() {
            *out = piece(row(first + done + i), xs, avx2);
        }
    };
    if par {
        y.par_chunks_mut(DOT_ROWS).enumerate().for_each(rows);
    } else {
        y.chunks_mut(DOT_ROWS).enumerate().for_each(rows);
    }
}

/// `x`'s elements, read one at a time by the scaled-sum form.
#[derive(Clone, Copy)]
struct Strided<T>(*const T, isize);

impl<T> Strided<T> {
    /// Element `p` (a method, for the same reason as [`Lhs::at`]).
    fn at(&self, p: isize) -> *const T {
        self.0.wrapping_offset(p * self.1)
    }
}

// SAFETY: as for `Lhs`.
unsafe impl<T: Sync> Sync for Strided<T> {}
// SAFETY: as for `Sync` above.
unsafe impl<T: Sync> Send for Strided<T> {}

/// Each block of outputs the sum of `x[p]` times its piece of column `p`,
/// four columns per pass over the block (a quarter of the block's loads
/// and stores; the sums are added in the same order as one at a time).
fn by_columns<T: Inner>(y: &mut [T], m: Lhs<T>, k: usize, xs: Strided<T>, par: bool) {
    let avx2 = crate::kernels::cpu::has_avx2();
    let block = |(b, ys): (usize, &mut [T])| {
        let o = (b * AXPY_BLOCK) as isize;
        let len = ys.len();
        // SAFETY: `p` < `k` and the block's outputs are inside the matrix,
        // whose columns are contiguous (`so` = 1); `x` holds `k` elements.
        let column = |p: usize| unsafe {
            let p = p as isize;
            (
                *xs.at(p),
                std::slice::from_raw_parts(m.at(o + p * m.sp), len),
            )
        };
        ys.fill(T::default());
        let mut p = 0;
        while p + 4 <= k {
            let [c0, c1, c2, c3] = [p, p + 1, p + 2, p + 3].map(column);
            add_scaled(ys, [c0, c1, c2, c3], avx2);
            p += 4;
        }
        for p in p..k {
            let (a, col) = column(p);
            ys.iter_mut().zip(col).for_each(|(y, &x)| *y = *y + a * x);
        }
    };
    if par {
        y.par_chunks_mut(AXPY_BLOCK).enumerate().for_each(block);
    } else {
        y.chunks_mut(AXPY_BLOCK).enumerate().for_each(block);
    }
}

/// Four (scale, column piece) pairs.
type Scaled<'a, T> = [(T, &'a [T]); 4];

#[inline(always)]
fn add_scaled_body<T: Copy + Add<Output = T> + Mul<Output = T>>(ys: &mut [T], cs: Scaled<'_, T>) {
    let [(a0, x0), (a1, x1), (a2, x2), (a3, x3)] = cs;
    let n = ys.len();
    let (x0, x1, x2, x3) = (&x0[..n], &x1[..n], &x2[..n], &x3[..n]);
    for i in 0..n {
        ys[i] = ys[i] + a0 * x0[i] + a1 * x1[i] + a2 * x2[i] + a3 * x3[i];
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_scaled_avx2<T: Copy + Add<Output = T> + Mul<Output = T>>(ys: &mut [T], cs: Scaled<'_, T>) {
    add_scaled_body(ys, cs);
}

/// `ys += Σ a·xs` over the four pairs, with an AVX2 build when `avx2`.
fn add_scaled<T: Copy + Add<Output = T> + Mul<Output = T>>(
    ys: &mut [T],
    cs: Scaled<'_, T>,
    avx2: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only true when the CPU has AVX2.
        return unsafe { add_scaled_avx2(ys, cs) };
    }
    let _ = avx2;
    add_scaled_body(ys, cs);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small integers: every sum is exact, whatever the order.
    fn matrix(rows: usize, cols: usize) -> Vec<f64> {
        (0..rows * cols)
            .map(|i| ((i * 7 + 3) % 11) as f64 - 5.0)
            .collect()
    }

    fn reference(m: &[f64], so: usize, sp: usize, n: usize, x: &[f64], sx: usize) -> Vec<f64> {
        let k = x.len().div_ceil(sx);
        (0..n)
            .map(|o| (0..k).map(|p| m[o * so + p * sp] * x[p * sx]).sum())
            .collect()
    }

    #[test]
    fn both_forms_at_sizes_around_the_blocks() {
        for (n, k) in [
            (1, 1),
            (3, 700),
            (DOT_ROWS + 1, 5),
            (AXPY_BLOCK + 3, 9),
            (1500, 400),
        ] {
            let m = matrix(n, k);
            let x: Vec<f64> = (0..2 * k).map(|i| (i % 5) as f64 - 2.0).collect();
            for threaded in [false, true] {
                // Row-major: rows contiguous, `x` contiguous.
                let mut y = vec![f64::NAN; n];
                let lhs = Lhs {
                    ptr: m.as_ptr(),
                    so: k as isize,
                    sp: 1,
                };
                // SAFETY: `m` is n×k row-major and `x` holds k elements.
                assert!(unsafe { matvec(&mut y, lhs, k, (x.as_ptr(), 1), threaded) });
                assert_eq!(y, reference(&m, k, 1, n, &x[..k], 1), "rows {n}x{k}");
                // Column-major (the same buffer read as k×n transposed),
                // `x` with stride 2.
                let lhs = Lhs {
                    ptr: m.as_ptr(),
                    so: 1,
                    sp: n as isize,
                };
                let mut y = vec![f64::NAN; n];
                // SAFETY: `m` holds n·k elements, `x` 2k.
                assert!(unsafe { matvec(&mut y, lhs, k, (x.as_ptr(), 2), threaded) });
                assert_eq!(y, reference(&m, 1, n, n, &x, 2), "columns {n}x{k}");
            }
        }
    }

    #[test]
    fn other_layouts_are_declined() {
        let m = matrix(4, 4);
        let mut y = vec![0.0; 2];
        let lhs = Lhs {
            ptr: m.as_ptr(),
            so: 8,
            sp: 2,
        };
        // SAFETY: offsets up to 1·8 + 1·2 stay inside `m`.
        assert!(!unsafe { matvec(&mut y, lhs, 2, (m.as_ptr(), 1), true) });
        let lhs = Lhs {
            ptr: m.as_ptr(),
            so: 4,
            sp: 1,
        };
        // SAFETY: as above; `x` is declined for its stride before any read.
        assert!(!unsafe { matvec(&mut y, lhs, 2, (m.as_ptr(), 3), true) });
        assert_eq!(y, [0.0, 0.0]);
    }

    #[test]
    fn nan_and_inf_propagate() {
        let m = [1.0, f64::NAN, 2.0, 3.0, f64::INFINITY, 1.0];
        let x = [1.0, 1.0, 1.0];
        let mut y = [0.0; 2];
        let lhs = Lhs {
            ptr: m.as_ptr(),
            so: 3,
            sp: 1,
        };
        // SAFETY: 2×3 row-major and 3 elements of `x`.
        assert!(unsafe { matvec(&mut y, lhs, 3, (x.as_ptr(), 1), false) });
        assert!(y[0].is_nan());
        assert_eq!(y[1], f64::INFINITY);
        // The column form, with the special values in the four-column
        // passes and in the tail: each output only sees its own row.
        for k in [4, 5, 7] {
            let mut m = vec![1.0; 3 * k];
            m[(k - 1) * 3] = f64::INFINITY; // row 0's last element (column-major)
            m[(k - 1) * 3 + 2] = f64::NAN; // row 2's last element
            let mut y = [0.0; 3];
            let lhs = Lhs {
                ptr: m.as_ptr(),
                so: 1,
                sp: 3,
            };
            let ones = vec![1.0; k];
            // SAFETY: a 3×k column-major matrix and k elements of `x`.
            assert!(unsafe { matvec(&mut y, lhs, k, (ones.as_ptr(), 1), false) });
            assert!(y[2].is_nan(), "{k}: {y:?}");
            assert_eq!(y[0], f64::INFINITY, "{k}: {y:?}");
            assert_eq!(y[1], k as f64, "{k}: {y:?}");
        }
    }
}
