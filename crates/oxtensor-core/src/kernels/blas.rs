//! An optional host BLAS for large real matrix products.
//!
//! faer's float64 kernel reaches about 32 GFLOP/s per core on the AVX2
//! machines we measure on, where OpenBLAS's Haswell kernel reaches 38; no
//! maintained Rust crate closes that gap. A host that already has an
//! optimised CBLAS loaded (from Python: the OpenBLAS NumPy itself calls) can
//! open it with [`HostBlas::open`] and [`install`] it; large
//! float32/float64 products whose operands have one unit stride then go
//! there, and everything else stays on faer. Nothing is installed by
//! default, so a Rust program gets faer unless it opts in.

use std::any::TypeId;
use std::ffi::c_int;
use std::sync::{Arc, RwLock};

/// `CblasRowMajor`, `CblasNoTrans` and `CblasTrans` from `cblas.h`.
const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;
const TRANS: c_int = 112;

/// `cblas_?gemm` with dimension integers `I`: `i32` (LP64) or `i64` (ILP64).
type Gemm<T, I> =
    unsafe extern "C" fn(c_int, c_int, c_int, I, I, I, T, *const T, I, *const T, I, T, *mut T, I);

/// One host BLAS/LAPACK library: its `cblas_?gemm` entry points
/// (addresses; 0 = absent) and how its other symbols are named, kept loaded
/// for as long as this value lives.
#[derive(Clone, Debug)]
pub struct HostBlas {
    name: String,
    sgemm: usize,
    dgemm: usize,
    ilp64: bool,
    /// Products of fewer multiply-adds stay on faer (see [`MIN_WORK`]).
    min_work: usize,
    /// Text around every exported name (`scipy_` and `64_` for NumPy's
    /// scipy-openblas64: `scipy_cblas_dgemm64_`, `scipy_dsyevd_64_`).
    prefix: String,
    suffix: String,
    lib: Option<Arc<libloading::Library>>,
}

impl HostBlas {
    /// Open the shared library at `path` (a no-op reference when the process
    /// already loaded it) and find `{prefix}cblas_sgemm{suffix}` and
    /// `{prefix}cblas_dgemm{suffix}`; one missing leaves that precision on
    /// faer, both missing is an error.
    ///
    /// # Safety
    /// The library's exported names must follow BLAS and LAPACK's reference
    /// signatures, with 64-bit integers when `ilp64` is true (`int`
    /// otherwise), callable from any thread; and loading it must be sound
    /// (its initialisers run if it was not loaded yet).
    pub unsafe fn open(
        name: &str,
        path: &std::path::Path,
        (prefix, suffix): (&str, &str),
        ilp64: bool,
    ) -> Result<Self, String> {
        // SAFETY: the caller's contract on the library.
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let mut host = HostBlas {
            name: name.to_string(),
            sgemm: 0,
            dgemm: 0,
            ilp64,
            min_work: MIN_WORK,
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
            lib: Some(Arc::new(lib)),
        };
        let (sgemm, dgemm) = (host.cblas_name("sgemm"), host.cblas_name("dgemm"));
        host.sgemm = host.address(&sgemm);
        host.dgemm = host.address(&dgemm);
        if host.sgemm == 0 && host.dgemm == 0 {
            return Err(format!(
                "{} has neither {sgemm} nor {dgemm}",
                path.display()
            ));
        }
        Ok(host)
    }

    /// Send products of at least `work` multiply-adds here (default
    /// [`MIN_WORK`]; 0 sends every product whose layout fits).
    pub fn with_min_work(mut self, work: usize) -> Self {
        self.min_work = work;
        self
    }

    /// What the host called this library.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether its integers are 64-bit (ILP64) rather than `int`.
    pub fn ilp64(&self) -> bool {
        self.ilp64
    }

    /// The address of the Fortran-interface routine `routine` (LAPACK's
    /// `dsyevd`, say: exported as `{prefix}dsyevd_{suffix}`), or 0.
    pub fn fortran(&self, routine: &str) -> usize {
        self.address(&format!("{}{routine}_{}", self.prefix, self.suffix))
    }

    fn cblas_name(&self, routine: &str) -> String {
        format!("{}cblas_{routine}{}", self.prefix, self.suffix)
    }

    fn address(&self, symbol: &str) -> usize {
        let Some(lib) = &self.lib else { return 0 };
        // SAFETY: only the address is read; `open`'s caller vouches for
        // the signature behind each name.
        unsafe { lib.get::<unsafe extern "C" fn()>(symbol.as_bytes()) }
            .map_or(0, |f| *f as *const () as usize)
    }
}

/// The default [`HostBlas::min_work`]: 2^27 multiply-adds (512³). Below
/// it faer was as fast or faster (1024² float32, the 784-256-256-10 MLP
/// step: 5.3 ms on faer, 7.6 ms on OpenBLAS, whose threads and rayon's
/// spin against each other on two cores between short products); above
/// it OpenBLAS's kernel wins (2048² float64: ~1.0x NumPy against faer's
/// 0.7-0.8x).
pub const MIN_WORK: usize = 1 << 27;

static INSTALLED: RwLock<Option<HostBlas>> = RwLock::new(None);

/// Route large real products to `lib` (or back to faer with `None`).
pub fn install(lib: Option<HostBlas>) {
    *INSTALLED.write().unwrap_or_else(|e| e.into_inner()) = lib;
}

/// The name of the library products go to, if any.
pub fn installed() -> Option<String> {
    with_installed(|lib| lib.name.clone())
}

/// `f` of the installed library, if one is (for LAPACK routines: look
/// them up with [`HostBlas::fortran`]).
pub fn with_installed<R>(f: impl FnOnce(&HostBlas) -> R) -> Option<R> {
    let guard = INSTALLED.read().unwrap_or_else(|e| e.into_inner());
    guard.as_ref().map(f)
}

/// One operand as CBLAS reads it in row-major order: whether it is
/// transposed and its leading dimension.
fn layout(rows: usize, cols: usize, rs: isize, cs: isize) -> Option<(c_int, usize)> {
    // A stride along a dimension of length 1 is never used: any value fits.
    let unit = |s: isize, len: usize| s == 1 || len == 1;
    let lead = |s: isize, len: usize, min: usize| {
        if len == 1 {
            Some(min.max(1))
        } else {
            usize::try_from(s).ok().filter(|&s| s >= min.max(1))
        }
    };
    if unit(cs, cols) {
        if let Some(ld) = lead(rs, rows, cols) {
            return Some((NO_TRANS, ld));
        }
    }
    if unit(rs, rows) {
        if let Some(ld) = lead(cs, cols, rows) {
            return Some((TRANS, ld));
        }
    }
    None
}

/// `dst = a · b` through the installed library, for a row-major `dst` with
/// row stride `n`. Returns false (having done nothing) when no library is
/// installed for `T`, or the operands' strides or sizes do not fit it.
///
/// # Safety
/// As [`super::gemm::product`]: `a` and `b` address m×k and k×n matrices
/// with their element strides and `dst` holds m·n elements.
pub(super) unsafe fn try_product<T: 'static + Copy>(
    dst: *mut T,
    (m, k, n): (usize, usize, usize),
    (pa, ars, acs): (*const T, isize, isize),
    (pb, brs, bcs): (*const T, isize, isize),
    (one, zero): (T, T),
) -> bool {
    let work = m.saturating_mul(k).saturating_mul(n);
    let (addr, ilp64) = match INSTALLED.read().as_deref() {
        Ok(Some(lib)) if work >= lib.min_work => match TypeId::of::<T>() {
            t if t == TypeId::of::<f64>() => (lib.dgemm, lib.ilp64),
            t if t == TypeId::of::<f32>() => (lib.sgemm, lib.ilp64),
            _ => (0, false),
        },
        _ => (0, false),
    };
    let (Some((ta, lda)), Some((tb, ldb))) = (layout(m, k, ars, acs), layout(k, n, brs, bcs))
    else {
        return false;
    };
    if addr == 0 {
        return false;
    }
    let dims = [m, k, n, lda, ldb];
    // SAFETY: the caller's contract on the operands; `install`'s on the
    // address (a CBLAS ?gemm for `T` with the library's integer width).
    unsafe {
        if ilp64 {
            call::<T, i64>(addr, (ta, tb), dims, (pa, pb, dst), (one, zero))
        } else {
            call::<T, i32>(addr, (ta, tb), dims, (pa, pb, dst), (one, zero))
        }
    }
}

/// Calls the `cblas_?gemm` at `addr` with integers of type `I`; false
/// (nothing done) when a dimension does not fit `I`.
///
/// # Safety
/// `addr` is a CBLAS ?gemm for `T` taking `I`, and the operands are as
/// [`try_product`]'s contract and `dims` = (m, k, n, lda, ldb) describe.
unsafe fn call<T, I: TryFrom<usize> + Copy>(
    addr: usize,
    (ta, tb): (c_int, c_int),
    dims: [usize; 5],
    (pa, pb, dst): (*const T, *const T, *mut T),
    (one, zero): (T, T),
) -> bool {
    let Some([m, k, n, lda, ldb]) = fit::<I>(dims) else {
        return false;
    };
    // SAFETY: the caller's contract.
    let gemm: Gemm<T, I> = unsafe { std::mem::transmute(addr) };
    unsafe {
        gemm(
            ROW_MAJOR, ta, tb, m, n, k, one, pa, lda, pb, ldb, zero, dst, n,
        )
    };
    true
}

/// All of `dims` converted to the library's integer type, if they fit.
fn fit<I: TryFrom<usize>>([a, b, c, d, e]: [usize; 5]) -> Option<[I; 5]> {
    let to = |v: usize| I::try_from(v).ok();
    Some([to(a)?, to(b)?, to(c)?, to(d)?, to(e)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_cblas_can_read() {
        // C-contiguous 3×4: not transposed, leading dimension 4.
        assert_eq!(layout(3, 4, 4, 1), Some((NO_TRANS, 4)));
        // Its transpose (4×3 with strides 1, 4): transposed, lda 4.
        assert_eq!(layout(4, 3, 1, 4), Some((TRANS, 4)));
        // Every other row of a 6×4 matrix: lda 8.
        assert_eq!(layout(3, 4, 8, 1), Some((NO_TRANS, 8)));
        // A row vector's row stride is unused (`dot` passes 0).
        assert_eq!(layout(1, 5, 0, 1), Some((NO_TRANS, 5)));
        // A column vector (k×1 with stride 1 down the rows).
        assert_eq!(layout(5, 1, 1, 0), Some((NO_TRANS, 1)));
        // Neither stride is 1, or the rows overlap, or a stride is negative.
        assert_eq!(layout(3, 4, 8, 2), None);
        assert_eq!(layout(3, 4, 2, 1), None);
        assert_eq!(layout(3, 4, -4, 1), None);
    }

    #[test]
    fn libraries_without_gemm_are_refused() {
        let open = |path: &str| unsafe { HostBlas::open("x", path.as_ref(), ("", ""), false) };
        let missing = open("/nonexistent/libblas.so").unwrap_err();
        assert!(
            missing.contains("cannot open /nonexistent/libblas.so"),
            "{missing}"
        );
        #[cfg(target_os = "linux")]
        {
            let no_gemm = open("libc.so.6").unwrap_err();
            assert!(
                no_gemm.contains("has neither cblas_sgemm nor cblas_dgemm"),
                "{no_gemm}"
            );
        }
    }

    #[test]
    fn dimensions_that_do_not_fit_are_refused() {
        assert_eq!(fit::<i32>([1, 2, 3, 4, 5]), Some([1, 2, 3, 4, 5]));
        assert_eq!(fit::<i32>([1, 2, 1 << 31, 4, 5]), None);
        assert!(fit::<i64>([1, 2, 1 << 31, 4, 5]).is_some());
    }

    /// A stand-in CBLAS (row-major, either transposition) checks that the
    /// arguments `try_product` passes describe the operands correctly.
    unsafe extern "C" fn plain_dgemm(
        _order: c_int,
        ta: c_int,
        tb: c_int,
        m: i64,
        n: i64,
        k: i64,
        alpha: f64,
        a: *const f64,
        lda: i64,
        b: *const f64,
        ldb: i64,
        beta: f64,
        c: *mut f64,
        ldc: i64,
    ) {
        let at = |i: i64, p: i64| {
            if ta == TRANS {
                p * lda + i
            } else {
                i * lda + p
            }
        };
        let bt = |p: i64, j: i64| {
            if tb == TRANS {
                j * ldb + p
            } else {
                p * ldb + j
            }
        };
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0.0;
                for p in 0..k {
                    acc += unsafe { *a.offset(at(i, p) as isize) * *b.offset(bt(p, j) as isize) };
                }
                let c = unsafe { &mut *c.offset((i * ldc + j) as isize) };
                // BLAS never reads C when beta is 0 (it may be garbage).
                *c = if beta == 0.0 {
                    alpha * acc
                } else {
                    alpha * acc + beta * *c
                };
            }
        }
    }

    #[test]
    fn products_go_to_the_installed_library() {
        let a: Vec<f64> = (0..6).map(|i| i as f64).collect(); // 2×3
        let b: Vec<f64> = (0..12).map(|i| (i as f64) * 0.5).collect(); // 3×4, or 4×3 transposed
        let lib = HostBlas {
            name: "plain".into(),
            sgemm: 0,
            dgemm: plain_dgemm as *const () as usize,
            ilp64: true,
            min_work: 0,
            prefix: String::new(),
            suffix: String::new(),
            lib: None,
        };
        let run = |brs, bcs| {
            let mut dst = [f64::NAN; 8];
            let done = unsafe {
                try_product(
                    dst.as_mut_ptr(),
                    (2, 3, 4),
                    (a.as_ptr(), 3, 1),
                    (b.as_ptr(), brs, bcs),
                    (1.0, 0.0),
                )
            };
            (done, dst)
        };
        install(Some(lib.clone()));
        let (done, dst) = run(4, 1);
        let (done_t, dst_t) = run(1, 3);
        let (strided, _) = run(8, 2);
        let installed_now = installed();
        // 2·3·4 = 24 multiply-adds: below a threshold of 25, faer's.
        install(Some(lib.with_min_work(25)));
        let (small, _) = run(4, 1);
        install(None);
        let (after, _) = run(4, 1);
        assert!(done && done_t && !strided && !small && !after);
        assert_eq!(installed_now.as_deref(), Some("plain"));
        // Row 1 of a is [3, 4, 5]; column 2 of b is [1, 3, 5] (plain) or
        // b[6..9] = [3, 3.5, 4] (transposed view).
        assert_eq!(dst[6], 3.0 + 12.0 + 25.0);
        assert_eq!(dst_t[6], 9.0 + 14.0 + 20.0);
    }
}
