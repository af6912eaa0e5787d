//! Which SIMD build of the kernels runs. The crate is compiled for
//! baseline x86-64 (SSE2); kernels with wider builds choose one at run
//! time through this module, the only place that asks the CPU what it
//! runs. `OXTENSOR_SIMD=baseline|avx2|native` caps the level for every
//! kernel at once, so one machine can run (and test) what a narrower one
//! runs: the builds round differently (FMA or not, lane counts of
//! reductions), within the same error bounds, not to the same bits.

// The one module `clippy.toml` lets ask the CPU itself.
#![allow(clippy::disallowed_macros)]

use std::sync::OnceLock;

/// The environment variable that caps [`level`].
pub const ENV: &str = "OXTENSOR_SIMD";

/// A build of the kernels, in increasing order of width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Baseline code: SSE2 on x86-64, and every other architecture.
    Base,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512 (F, DQ and VL) with AVX2 and FMA.
    Avx512,
}

impl Level {
    /// Its name in reports: `baseline`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Base => "baseline",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }
}

/// The widest build this CPU runs, whatever [`ENV`] says.
pub fn hardware() -> Level {
    static HARDWARE: OnceLock<Level> = OnceLock::new();
    *HARDWARE.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Level {
    use std::is_x86_feature_detected as has;
    let avx2 = has!("avx2") && has!("fma");
    if avx2 && has!("avx512f") && has!("avx512dq") && has!("avx512vl") {
        Level::Avx512
    } else if avx2 {
        Level::Avx2
    } else {
        Level::Base
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Level {
    Level::Base
}

/// The cap a value of [`ENV`] names (`None`: no cap), or why it names
/// none. `native` and the empty string cap nothing.
pub fn parse_cap(value: &str) -> Result<Option<Level>, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "native" => Ok(None),
        "baseline" => Ok(Some(Level::Base)),
        "avx2" => Ok(Some(Level::Avx2)),
        _ => Err(format!(
            "{ENV}={value:?} is not 'baseline', 'avx2' or 'native'; using native"
        )),
    }
}

/// The cap [`ENV`] asks for, read once.
fn requested() -> &'static Result<Option<Level>, String> {
    static REQUESTED: OnceLock<Result<Option<Level>, String>> = OnceLock::new();
    REQUESTED.get_or_init(|| match std::env::var(ENV) {
        Ok(value) => parse_cap(&value),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(err) => Err(format!("{ENV} is unreadable ({err}); using native")),
    })
}

/// Why [`ENV`] was ignored, if it was (the Python layer warns with it).
pub fn env_problem() -> Option<&'static str> {
    requested().as_ref().err().map(String::as_str)
}

/// The build the kernels run: [`hardware`], capped by [`ENV`]. Never
/// wider than the CPU runs, so holding it is what makes a build's
/// `unsafe` call sound.
pub fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| match requested() {
        Ok(Some(cap)) => hardware().min(*cap),
        _ => hardware(),
    })
}

/// Every build up to [`level`], narrowest first (for tests that compare
/// them).
pub fn levels() -> Vec<Level> {
    [Level::Base, Level::Avx2, Level::Avx512]
        .into_iter()
        .filter(|&l| l <= level())
        .collect()
}

/// Whether the AVX2 (with FMA) builds run.
pub fn has_avx2() -> bool {
    level() >= Level::Avx2
}

/// Whether the AVX-512 builds run.
pub fn has_avx512() -> bool {
    level() >= Level::Avx512
}

/// Whether the AVX-512 builds that also count bits (POPCNT) run: the
/// sorting networks' partitions.
pub fn has_avx512_popcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx512() && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the AVX-512 builds on 16-bit lanes (BW, VBMI2's compress,
/// POPCNT) run: the sorting networks for 16-bit keys.
pub fn has_avx512_words() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::is_x86_feature_detected as has;
        has_avx512_popcnt() && has!("avx512bw") && has!("avx512vbmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `fn name<G..>(lvl: Level, args..)`: runs `body::<G.., F>(args..)` in the
/// build at `lvl` (lowered to [`level`]). `body` is `#[inline(always)]`
/// and generic over whether FMA is available (`F`); the AVX-512 and AVX2
/// builds are two wrappers with those features enabled, into which it is
/// inlined and compiled again, so each kernel writes its loop once.
macro_rules! three_builds {
    (
        $(#[$doc:meta])*
        $vis:vis fn $name:ident<$($g:ident: $bound:path),+>(
            lvl: Level, $($arg:ident: $ty:ty),+ $(,)?
        ) => $body:ident;
    ) => {
        $(#[$doc])*
        $vis fn $name<$($g: $bound),+>(lvl: $crate::kernels::cpu::Level, $($arg: $ty),+) {
            use $crate::kernels::cpu::Level;
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
            fn avx512<$($g: $bound),+>($($arg: $ty),+) {
                $body::<$($g),+, true>($($arg),+);
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            fn avx2<$($g: $bound),+>($($arg: $ty),+) {
                $body::<$($g),+, true>($($arg),+);
            }
            match lvl.min($crate::kernels::cpu::level()) {
                // SAFETY: `cpu::level` never names a build the CPU does not run.
                #[cfg(target_arch = "x86_64")]
                Level::Avx512 => unsafe { avx512::<$($g),+>($($arg),+) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                Level::Avx2 => unsafe { avx2::<$($g),+>($($arg),+) },
                _ => $body::<$($g),+, false>($($arg),+),
            }
        }
    };
}
pub(crate) use three_builds;

/// `fn name[generics](args) -> R => plain, "features";`: runs `plain(args)`,
/// compiled a second time with `features` enabled (AVX2 and what comes with
/// it) where the CPU has AVX2; the crate targets baseline x86-64. `plain`
/// is `#[inline(always)]`, so each build gets its own copy of the loop.
macro_rules! avx2_build {
    (
        $(#[$doc:meta])*
        $vis:vis fn $name:ident[$($g:tt)*]($($arg:ident: $ty:ty),+ $(,)?) $(-> $ret:ty)?
        => $plain:ident, $features:literal;
    ) => {
        $(#[$doc])*
        $vis fn $name<$($g)*>($($arg: $ty),+) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = $features)]
            fn avx2<$($g)*>($($arg: $ty),+) $(-> $ret)? {
                $plain($($arg),+)
            }
            #[cfg(target_arch = "x86_64")]
            if $crate::kernels::cpu::has_avx2() {
                // SAFETY: the CPU runs AVX2 (and what `features` adds),
                // checked just above.
                return unsafe { avx2($($arg),+) };
            }
            $plain($($arg),+)
        }
    };
}
pub(crate) use avx2_build;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_parse_and_unknown_values_are_refused() {
        let cases = [
            ("baseline", Ok(Some(Level::Base))),
            (" AVX2 ", Ok(Some(Level::Avx2))),
            ("native", Ok(None)),
            ("", Ok(None)),
        ];
        for (value, want) in cases {
            assert_eq!(parse_cap(value), want, "{value:?}");
        }
        for value in ["avx", "base", "avx512", "sse2"] {
            let err = parse_cap(value).unwrap_err();
            assert!(err.contains("'baseline', 'avx2' or 'native'"), "{err}");
        }
    }

    #[test]
    fn the_level_never_exceeds_the_cpu_and_levels_end_at_it() {
        assert!(level() <= hardware());
        assert_eq!(levels().first(), Some(&Level::Base));
        assert_eq!(levels().last(), Some(&level()));
        assert_eq!(has_avx2(), level() >= Level::Avx2);
        assert!(!has_avx512_words() || has_avx512_popcnt());
        assert!(!has_avx512_popcnt() || has_avx512());
    }

    #[test]
    fn the_environment_caps_the_level() {
        let want = match std::env::var(ENV).as_deref() {
            Ok("baseline") => Level::Base,
            Ok("avx2") => hardware().min(Level::Avx2),
            _ => hardware(),
        };
        assert_eq!(level(), want);
    }
}
