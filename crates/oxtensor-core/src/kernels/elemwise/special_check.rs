//! Test support for the special functions: their values checked against
//! tables taken from SciPy, mpmath or the papers, to a relative tolerance.

/// Whether `got` is within `rtol` of `want`, relative to `want` (floored at
/// 1e-300, so that a zero `want` asks for an exact zero).
pub(super) fn close(got: f64, want: f64, rtol: f64) -> bool {
    (got - want).abs() <= rtol * want.abs().max(1e-300)
}

/// A function of `N` arguments under test, with the name its failures print.
pub(super) type Named<const N: usize> = (&'static str, fn([f64; N]) -> f64);

/// Each row's arguments through each of `fns`, against the row's values (one
/// a function, in order) within `rtol`: one loop for every reference table.
pub(super) fn check_rows<const N: usize, const M: usize>(
    fns: [Named<N>; M],
    rows: &[([f64; N], [f64; M])],
    rtol: f64,
) {
    for (args, wants) in rows {
        for ((name, f), &want) in fns.iter().zip(wants) {
            let got = f(*args);
            assert!(close(got, want, rtol), "{name}{args:?} = {got}, not {want}");
        }
    }
}
