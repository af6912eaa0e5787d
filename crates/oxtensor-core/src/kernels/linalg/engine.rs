//! Which engine runs each family of dense linear algebra when a host
//! library is installed (see [`crate::kernels::linalg::blas`]): the host's BLAS/LAPACK or
//! faer, decided from facts of the machine, the SIMD width each engine's
//! kernels run at here, not from a fixed preference.
//!
//! faer picks its matrix-product kernel by `is_x86_feature_detected!
//! ("avx512f")`; OpenBLAS picks one per CPU model and names it (its "core
//! name"). NumPy's scipy-openblas 0.3.31 on an AMD Zen 5 runs its Haswell
//! (AVX2) kernels, while faer runs AVX-512 there. The routing reads the
//! CPU through `cpu::level`, so `OXTENSOR_SIMD=avx2` routes as an AVX2
//! machine does (faer's own kernels still run what the CPU has).
//!
//! # The rule and the numbers behind it
//!
//! Which engine runs each family is a fact of the machine, not a fixed
//! preference (this module). faer picks its product kernel by
//! `is_x86_feature_detected!("avx512f")`; OpenBLAS picks one per CPU model and
//! names it (`openblas_get_corename`). NumPy's scipy-openblas64 0.3.31 on this
//! AMD EPYC Zen 5 says `Haswell`: AVX2 kernels, while faer runs AVX-512 here,
//! and OpenBLAS's threads degrade far more than faer's when the two cores are
//! shared. `Machine::routes` reads those two facts (`auto`, the default): where
//! the CPU has AVX-512F and the host's core name is not an AVX-512 one
//! (`SkylakeX`, `Cooperlake`, `SapphireRapids`), products, LU (`inv`, `det`,
//! `slogdet`, `solve`), Cholesky and QR run on faer, whose time is mostly its
//! AVX-512 matrix product; `eigh`/`eigvalsh` and the SVD stay on LAPACK, whose
//! divide-and-conquer algorithms hold their own whatever the kernel width;
//! inner products (`dot` of vectors, `norm`) go to the host's `?dot` whenever
//! there is one (see below). On any other machine every family goes to the
//! host, as measured on the earlier AVX2 machine. A one-time calibration was
//! the alternative; it was left out because timings on a shared 2-core machine
//! swing 2–10x from one second to the next (NumPy's 2000² Cholesky: 0.17–2 s
//! within a minute at load 7), so a start-up measurement would route at random
//! and cost seconds of import time. `OXTENSOR_BLAS=numpy` (every family on the
//! host), `OXTENSOR_BLAS=faer` (none) and `use_blas(...)` override it;
//! `blas.engines()` and the bench headers say which engine runs each family and
//! why. The numbers behind the rule (`benches/bench_engines.py`, one thread
//! each, `OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1`, so that the load of
//! other jobs on the machine (4–8 here) does not decide; NumPy/ours, ranges of
//! 3 rounds of best-of-3, host = NumPy's OpenBLAS and LAPACK, faer = faer;
//! float64 500² / 2000², float32 1000² (NumPy computes float32 in float64,
//! hence its slow float32 column)):
//!
//! | op | host | faer |
//! |---|---|---|
//! | matmul 2000² | 1.00–1.02 | 1.29–1.81 |
//! | inv | 1.05–1.16 / 1.30–1.76 / 1.60–2.15 | 2.00–2.02 / 1.98–2.80 / 2.23–3.33 |
//! | det | 1.03–1.25 / 0.97–1.41 / 1.84–2.64 | 1.81–3.36 / 1.31–2.42 / 4.24–6.09 |
//! | slogdet | 0.64–0.97 / 0.64–1.04 / 1.39–2.54 | 1.59–2.43 / 1.15–1.81 / 3.07–4.07 |
//! | solve | 0.96–1.28 / 1.02–1.08 / 2.31–4.77 | 1.60–2.34 / 1.23–2.06 / 1.99–3.85 |
//! | cholesky | 0.73–1.73 / 1.06–1.10 / 1.83–3.22 | 1.65–4.07 / 0.89–1.60 / 5.41–9.90 |
//! | qr full | 1.05–1.14 / 0.89–1.23 / 2.08–2.78 | 1.61–1.66 / 0.99–2.01 / 1.98–3.12 |
//! | qr reduced | 0.49–1.15 / 1.03–1.27 / 1.78–2.58 | 1.54–1.67 / 1.15–1.85 / 1.66–3.49 |
//! | qr r | 0.80–0.96 / 0.83–0.98 / 0.95–2.91 | 1.64–1.82 / 1.33–1.95 / 1.65–3.24 |
//! | eigh | 1.03–1.05 / 0.73–1.03 / 1.52–2.44 | 1.00–1.05 / 0.59–1.02 / 1.99–2.16 |
//! | eigvalsh | 1.02–1.10 / 1.07–1.13 / 1.24–2.62 | 0.64–0.68 / 0.56–0.58 / 0.90–1.74 |
//! | svd full | 0.99–1.01 / 0.96–1.46 / 1.95–3.29 | 1.10–1.13 / 0.72–1.17 / 1.70–3.04 |
//! | svd thin | 0.95–1.06 / 0.86–1.06 / 1.33–2.56 | 1.12–1.17 / 0.71–0.89 / 2.19–3.21 |
//! | svd values | 0.98–1.03 / 0.80–1.10 / 1.29–1.91 | 0.73–0.75 / 0.39–0.71 / 1.15–1.54 |
//!
//! With both engines threaded (the default; load 3–8 from other jobs) the
//! picture is the same, only noisier, 2000² float64 host / faer: matmul
//! 0.99–1.07 / 1.69–1.84, inv 1.26–1.30 / 1.40–1.53, slogdet 0.96–1.05 /
//! 1.15–1.17, solve 0.92–1.05 / 1.28–1.33, Cholesky 1.12–1.19 / 1.34–1.79, eigh
//! 0.64–1.00 / 0.95–1.10, eigvalsh 0.30–1.32 / 0.51–0.75. OpenBLAS's threaded
//! calls (NumPy's own included) slowed down far more than faer's: NumPy's 500²
//! `svd` values took 26 ms on one thread and 0.94 s threaded at load 7. `eigh`
//! with eigenvectors is a tie on one thread and faer leads under load; it stays
//! on the host with `eigvalsh` (one family), which LAPACK wins clearly, and
//! keeps NumPy's values.

/// A family of operations routed together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Large real matrix products (`dot`, `matmul`).
    Product,
    /// Inner products of two vectors (`dot` of vectors, `norm`).
    Dot,
    /// LU with partial pivoting: `inv`, `det`, `slogdet`, `solve`.
    Lu,
    /// Cholesky factorisation.
    Cholesky,
    /// Symmetric eigendecomposition (`eigh`, `eigvalsh`).
    Eigh,
    /// Singular value decomposition, every mode.
    Svd,
    /// QR, every mode.
    Qr,
}

impl Family {
    /// Every family, in the order [`Family::name`] lists them.
    pub const ALL: [Family; 7] = [
        Family::Product,
        Family::Dot,
        Family::Lu,
        Family::Cholesky,
        Family::Eigh,
        Family::Svd,
        Family::Qr,
    ];

    /// Its name in reports and overrides (`"product"`, `"lu"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Family::Product => "product",
            Family::Dot => "dot",
            Family::Lu => "lu",
            Family::Cholesky => "cholesky",
            Family::Eigh => "eigh",
            Family::Svd => "svd",
            Family::Qr => "qr",
        }
    }

    /// The family called `name`, if any.
    pub fn parse(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The set of families that go to the host library (the others run on
/// faer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Routes(u8);

impl Routes {
    /// Every family on the host library.
    pub const ALL: Routes = Routes((1 << Family::ALL.len()) - 1);
    /// Every family on faer.
    pub const NONE: Routes = Routes(0);

    /// These routes with `family` sent to the host (`host`) or to faer.
    pub fn with(self, family: Family, host: bool) -> Routes {
        if host {
            Routes(self.0 | family.bit())
        } else {
            Routes(self.0 & !family.bit())
        }
    }

    /// Whether `family` goes to the host library.
    pub fn host(self, family: Family) -> bool {
        self.0 & family.bit() != 0
    }
}

/// The facts of this machine the routing depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// faer's matrix-product kernel runs 512-bit vectors (the CPU has
    /// AVX-512F, faer's own test).
    pub faer_avx512: bool,
    /// The host library's kernels do too (from its core name).
    pub host_avx512: bool,
}

impl Machine {
    /// This CPU, with a host library whose kernels are called `kernel`
    /// (OpenBLAS's `openblas_get_corename`: `Haswell`, `SkylakeX`, ...).
    pub fn detect(kernel: &str) -> Machine {
        Machine {
            faer_avx512: cpu_has_avx512f(),
            host_avx512: kernel_is_avx512(kernel),
        }
    }

    /// faer's kernels are wider than the host library's here.
    pub fn faer_wider(self) -> bool {
        self.faer_avx512 && !self.host_avx512
    }

    /// The default routes. Where faer's kernels are the wider, the
    /// families whose time is mostly matrix products go to faer (products,
    /// LU, Cholesky, QR: 1.1–2.4x NumPy single-threaded on a Zen 5 against
    /// 0.9–1.3x through its Haswell-kernel OpenBLAS), while `eigh` and the
    /// SVD, where LAPACK's algorithms hold their own (values alone: 1.0–1.2x
    /// against faer's 0.4–0.7x), stay on the host. Elsewhere the host serves
    /// every family (measured first on an AVX2 machine: 1.0–1.2x against
    /// faer's 0.6–0.8x). Inner products always go to the host when there
    /// is one: our kernel matches OpenBLAS's `ddot` on one thread, but
    /// OpenBLAS's spinning threads answer a 0.2 ms call at once where
    /// rayon's sleeping ones took 0.3–0.6 ms on two busy cores.
    /// This module's docs have the numbers.
    pub fn routes(self) -> Routes {
        let wider = self.faer_wider();
        [Family::Product, Family::Lu, Family::Cholesky, Family::Qr]
            .into_iter()
            .fold(Routes::ALL, |r, f| r.with(f, !wider))
    }
}

/// Whether the CPU has AVX-512F, the test faer uses to pick its kernel
/// (as `cpu::level` reads it: F with DQ and VL, which every AVX-512 CPU
/// but the Xeon Phi has, and capped by `OXTENSOR_SIMD`).
pub fn cpu_has_avx512f() -> bool {
    crate::kernels::cpu::has_avx512()
}

/// Whether an OpenBLAS core name is one of its AVX-512 kernel sets
/// (`SkylakeX`, `Cooperlake`, `SapphireRapids`; `Zen` and `Haswell` run
/// AVX2). An unknown name counts as not AVX-512.
pub fn kernel_is_avx512(kernel: &str) -> bool {
    let k = kernel.to_ascii_lowercase();
    ["skylakex", "cooperlake", "sapphirerapids"]
        .iter()
        .any(|name| k.contains(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_round_trip_and_routes_are_sets() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
            assert!(Routes::ALL.host(f) && !Routes::NONE.host(f));
            let one = Routes::NONE.with(f, true);
            assert!(Family::ALL.iter().all(|&g| one.host(g) == (g == f)));
            assert_eq!(Routes::ALL.with(f, false).with(f, true), Routes::ALL);
        }
        assert_eq!(Family::parse("mkl"), None);
    }

    #[test]
    fn core_names() {
        for name in ["SkylakeX", "COOPERLAKE", "SapphireRapids"] {
            assert!(kernel_is_avx512(name), "{name}");
        }
        for name in ["Haswell", "Zen", "Sandybridge", "", "neoversen1"] {
            assert!(!kernel_is_avx512(name), "{name}");
        }
    }

    #[test]
    fn products_go_to_the_wider_kernel() {
        let wider = Machine {
            faer_avx512: true,
            host_avx512: false,
        };
        assert!(wider.faer_wider());
        for f in Family::ALL {
            let host = matches!(f, Family::Dot | Family::Eigh | Family::Svd);
            assert_eq!(wider.routes().host(f), host, "{f:?}");
        }
        for (faer_avx512, host_avx512) in [(false, false), (true, true), (false, true)] {
            let m = Machine {
                faer_avx512,
                host_avx512,
            };
            assert_eq!(m.routes(), Routes::ALL, "{m:?}");
        }
    }
}
