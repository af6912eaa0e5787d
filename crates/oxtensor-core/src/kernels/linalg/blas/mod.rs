//! An optional host BLAS/LAPACK for large real matrix products and the
//! decompositions.
//!
//! faer's float64 kernel reached about 32 GFLOP/s per core on an AVX2
//! machine where OpenBLAS's Haswell kernel reached 38 (on an AVX-512 CPU
//! faer's is the faster; see [`crate::kernels::linalg::engine`]). A host that already has
//! an optimised BLAS loaded (from Python: the OpenBLAS NumPy itself calls)
//! can open it with [`HostBlas::open`] and [`install`] it; it then serves
//! the families its [`Routes`] name: large float32/float64 products whose
//! operands have one unit stride, inner products, and the LAPACK routines
//! of [`crate::kernels::linalg::lapack`] and its siblings. Everything else stays on faer.
//! Nothing is installed by default, so a Rust program gets faer unless it
//! opts in.
//!
//! # Why faer, and when the host's BLAS
//!
//! Matrix products use faer's `matmul`, or the OpenBLAS NumPy loaded,
//! whichever has the wider kernels on the machine (see [`super::engine`] for
//! how that is decided). faer (its x86 kernels: packed AVX2/AVX-512, threaded
//! over rayon's pool; unrolled kernels for tiny products) is the engine a Rust
//! program gets; integer dtypes use a plain loop, as NumPy does.
//! Single-threaded at 2048² float64 on an earlier EPYC without AVX-512, faer's
//! kernel did ~31–32 GFLOP/s where OpenBLAS's Haswell kernel did 38–39
//! (measured both ways on one core), so no threading change could reach NumPy;
//! the `gemm` crate (29.8–31.5) and `matrixmultiply` were slower still. Linking
//! a BLAS through a `-sys` crate would need a system library (or a long
//! OpenBLAS build) on every install. But from Python, NumPy has already loaded
//! its OpenBLAS (scipy-openblas64 in every Linux/Windows wheel):
//! this module holds an optional host CBLAS (`HostBlas::open` on a path +
//! the symbols' prefix/suffix, through `libloading`, `install`), and
//! `oxtensor.tensor.blas` finds NumPy's library in the process
//! (`/proc/self/maps`, or the wheel's `numpy.libs`/`.dylibs`), asks it for its
//! build config (`openblas_get_config`: `USE64BITINT` decides the integer
//! width, never the file name) and installs its `cblas_?gemm`. float32/float64
//! products of at least 2^27 multiply-adds (`MIN_WORK`, 512³) whose operands
//! each have a unit stride go there; others (smaller, strided, complex,
//! products run side by side in a batch) stay on faer. The threshold is
//! measured: the 784-256-256-10 MLP step (products of ≤ 2.6e7 multiply-adds)
//! took 5.3 ms (float64) / 2.1 ms (float32) with every product on faer and 7.6
//! / 2.6 ms with every threaded one on OpenBLAS, whose worker threads and
//! rayon's spin against each other on two cores between short products; at
//! 1024² faer and OpenBLAS were even, at 2048² float64 OpenBLAS gave 0.87–1.11x
//! NumPy and faer 0.70–0.80x (that machine). `OXTENSOR_BLAS=faer` or
//! `use_blas("faer")` turns it off. Same library, same call: C-ordered results
//! are bit-identical to NumPy's. The `gemm` crate was also A/B'd as the engine
//! twice (row- and column-major destinations): no better than faer overall.

mod gemm;
mod gemv;
mod inner;
mod matmul;
mod matvec;
mod matvec_rows;

pub use gemm::dot;
pub use matmul::matmul;

use crate::kernels::linalg::engine::{Family, Routes};
use std::any::TypeId;
use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

/// `CblasRowMajor`, `CblasNoTrans` and `CblasTrans` from `cblas.h`.
const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;
pub(super) const TRANS: c_int = 112;

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
    /// The name of its compute kernels (OpenBLAS's core name), if known.
    kernel: String,
    /// The families it serves.
    routes: Routes,
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
            kernel: String::new(),
            routes: Routes::ALL,
            lib: Some(Arc::new(lib)),
        };
        let (sgemm, dgemm) = (host.cblas_name("sgemm"), host.cblas_name("dgemm"));
        host.sgemm = host.cblas("sgemm");
        host.dgemm = host.cblas("dgemm");
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

    /// Record the name of its compute kernels (OpenBLAS's
    /// `openblas_get_corename`: `Haswell`, `SkylakeX`, ...).
    pub fn with_kernel(mut self, kernel: &str) -> Self {
        self.kernel = kernel.to_string();
        self
    }

    /// Serve only the families in `routes` (default: all of them).
    pub fn with_routes(mut self, routes: Routes) -> Self {
        self.routes = routes;
        self
    }

    /// What the host called this library.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name of its compute kernels, empty if unknown.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// The families it serves.
    pub fn routes(&self) -> Routes {
        self.routes
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

    /// The address of the CBLAS routine `routine` (`ddot`, say: exported
    /// as `{prefix}cblas_ddot{suffix}`), or 0.
    pub fn cblas(&self, routine: &str) -> usize {
        self.address(&self.cblas_name(routine))
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

/// Products the installed libraries have run since the process started:
/// which engine ran a product shows in no result (both are correct to
/// within rounding, and which rounding is not promised), so tests of the
/// routing count calls instead.
static HOST_PRODUCTS: AtomicUsize = AtomicUsize::new(0);

/// How many matrix products a host library has run in this process.
pub fn host_products() -> usize {
    HOST_PRODUCTS.load(Ordering::Relaxed)
}

/// Route large real products to `lib` (or back to faer with `None`).
pub fn install(lib: Option<HostBlas>) {
    *INSTALLED.write().unwrap_or_else(|e| e.into_inner()) = lib;
}

/// The name of the installed library, if any (whatever it serves).
pub fn installed() -> Option<String> {
    with_installed(|lib| lib.name.clone())
}

/// The name of the library `family` runs on, or `None` for faer.
pub fn engine(family: Family) -> Option<String> {
    serving(family, |lib| lib.name.clone())
}

/// `f` of the installed library, if one is.
pub fn with_installed<R>(f: impl FnOnce(&HostBlas) -> R) -> Option<R> {
    let guard = INSTALLED.read().unwrap_or_else(|e| e.into_inner());
    guard.as_ref().map(f)
}

/// `f` of the installed library if it serves `family` (for LAPACK
/// routines: look them up with [`HostBlas::fortran`]), else `None`.
pub fn serving<R>(family: Family, f: impl FnOnce(&HostBlas) -> R) -> Option<R> {
    with_installed(|lib| lib.routes.host(family).then(|| f(lib))).flatten()
}

/// One operand as CBLAS reads it in row-major order: whether it is
/// transposed and its leading dimension.
pub(super) fn layout(rows: usize, cols: usize, rs: isize, cs: isize) -> Option<(c_int, usize)> {
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
/// As [`gemm::product`]: `a` and `b` address m×k and k×n matrices
/// with their element strides and `dst` holds m·n elements.
pub(super) unsafe fn try_product<T: 'static + Copy>(
    dst: *mut T,
    mkn: (usize, usize, usize),
    a: (*const T, isize, isize),
    b: (*const T, isize, isize),
    one_zero: (T, T),
) -> bool {
    let work = mkn.0.saturating_mul(mkn.1).saturating_mul(mkn.2);
    let routine = match INSTALLED.read().as_deref() {
        Ok(Some(lib)) => lib.product_routine::<T>(work),
        _ => (0, false),
    };
    // SAFETY: the caller's contract; `install`'s on the routine.
    unsafe { product_with(routine, dst, mkn, a, b, one_zero) }
}

impl HostBlas {
    /// The `cblas_?gemm` for `T` (address, 64-bit integers) that a product
    /// of `work` multiply-adds goes to; address 0 if none.
    fn product_routine<T: 'static>(&self, work: usize) -> (usize, bool) {
        if work < self.min_work || !self.routes.host(Family::Product) {
            return (0, false);
        }
        match TypeId::of::<T>() {
            t if t == TypeId::of::<f64>() => (self.dgemm, self.ilp64),
            t if t == TypeId::of::<f32>() => (self.sgemm, self.ilp64),
            _ => (0, false),
        }
    }
}

/// [`try_product`] through `(addr, ilp64)`, a routine from
/// [`HostBlas::product_routine`] (address 0: none, false returned).
///
/// # Safety
/// As [`try_product`]; a non-zero `addr` is a CBLAS ?gemm for `T` taking
/// 64-bit integers if `ilp64`, else 32-bit ones.
unsafe fn product_with<T: 'static + Copy>(
    (addr, ilp64): (usize, bool),
    dst: *mut T,
    (m, k, n): (usize, usize, usize),
    (pa, ars, acs): (*const T, isize, isize),
    (pb, brs, bcs): (*const T, isize, isize),
    (one, zero): (T, T),
) -> bool {
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
    let done = unsafe {
        if ilp64 {
            call::<T, i64>(addr, (ta, tb), dims, (pa, pb, dst), (one, zero))
        } else {
            call::<T, i32>(addr, (ta, tb), dims, (pa, pb, dst), (one, zero))
        }
    };
    HOST_PRODUCTS.fetch_add(usize::from(done), Ordering::Relaxed);
    done
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
    // SAFETY: the caller's contract: `addr` is this library's ?gemm for `T` with integers `I`, and the pointers hold the operands' extents.
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
mod tests;
