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
    /// docs/architecture.md has the numbers.
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
