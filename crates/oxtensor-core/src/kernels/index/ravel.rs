//! Flat indices and coordinates: NumPy's `unravel_index` (flat positions
//! to one coordinate array per axis) and `ravel_multi_index` (the way
//! back, with its `raise`/`wrap`/`clip` modes), in C or Fortran order.

use crate::error::{Error, Result};

/// What `ravel_multi_index` does with a coordinate outside its axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutOfRange {
    /// A `ValueError`.
    Raise,
    /// Taken modulo the axis' length.
    Wrap,
    /// Clipped into the axis.
    Clip,
}

/// The axes in the order their strides grow: last first for C order,
/// first first for Fortran order.
fn fastest_first(ndim: usize, fortran: bool) -> Vec<usize> {
    if fortran {
        (0..ndim).collect()
    } else {
        (0..ndim).rev().collect()
    }
}

/// The lengths as `usize`, refusing negative ones.
fn lengths(dims: &[i64]) -> Result<Vec<usize>> {
    dims.iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::Value(format!("dimensions must be non-negative, got {dims:?}")))
}

/// One coordinate list per axis of `dims` for each flat position.
pub fn unravel(indices: &[i64], dims: &[i64], fortran: bool) -> Result<Vec<Vec<i64>>> {
    let dims = lengths(dims)?;
    let size = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let size = size.ok_or_else(|| Error::Value("dimensions are too large".into()))?;
    let mut out = vec![Vec::with_capacity(indices.len()); dims.len()];
    for &i in indices {
        let mut rest = usize::try_from(i)
            .ok()
            .filter(|&i| i < size)
            .ok_or_else(|| {
                Error::Value(format!(
                    "index {i} is out of bounds for array with size {size}"
                ))
            })?;
        for axis in fastest_first(dims.len(), fortran) {
            out[axis].push((rest % dims[axis]) as i64);
            rest /= dims[axis];
        }
    }
    Ok(out)
}

/// `c` as a coordinate on an axis of length `n` under `mode`.
fn coordinate(c: i64, n: usize, mode: OutOfRange) -> Result<usize> {
    let n_i = n as i64;
    match mode {
        _ if (0..n_i).contains(&c) => Ok(c as usize),
        OutOfRange::Raise => Err(Error::Value(format!(
            "invalid entry in coordinates array: {c} is outside an axis of length {n}"
        ))),
        OutOfRange::Wrap if n > 0 => Ok(c.rem_euclid(n_i) as usize),
        OutOfRange::Clip if n > 0 => Ok(c.clamp(0, n_i - 1) as usize),
        _ => Err(Error::Value(format!(
            "cannot {mode:?} coordinate {c} into an empty axis"
        ))),
    }
}

/// The flat position of each coordinate tuple: `coords[axis][k]` is the
/// `k`-th tuple's coordinate on `axis` (all lists of one length).
pub fn ravel(
    coords: &[Vec<i64>],
    dims: &[i64],
    mode: OutOfRange,
    fortran: bool,
) -> Result<Vec<i64>> {
    let dims = lengths(dims)?;
    if coords.len() != dims.len() {
        return Err(Error::Value(format!(
            "parameter multi_index must be a sequence of length {}, got {}",
            dims.len(),
            coords.len()
        )));
    }
    let n = coords.first().map_or(1, Vec::len);
    let mut out = vec![0i64; n];
    let mut stride = 1usize;
    for axis in fastest_first(dims.len(), fortran) {
        for (o, &c) in out.iter_mut().zip(&coords[axis]) {
            *o += (coordinate(c, dims[axis], mode)? * stride) as i64;
        }
        stride = stride
            .checked_mul(dims[axis])
            .ok_or_else(|| Error::Value("dimensions are too large".into()))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_both_orders() {
        let dims = [3, 4, 5];
        let flat: Vec<i64> = (0..60).collect();
        for fortran in [false, true] {
            let coords = unravel(&flat, &dims, fortran).unwrap();
            let back = ravel(&coords, &dims, OutOfRange::Raise, fortran).unwrap();
            assert_eq!(back, flat);
        }
        // numpy.unravel_index(22, (3, 4, 5)) == (1, 0, 2); order F: (1, 3, 1).
        let c = unravel(&[22], &dims, false).unwrap();
        assert_eq!(c, vec![vec![1], vec![0], vec![2]]);
        let f = unravel(&[22], &dims, true).unwrap();
        assert_eq!(f, vec![vec![1], vec![3], vec![1]]);
        assert!(unravel(&[60], &dims, false).is_err());
        assert!(unravel(&[-1], &dims, false).is_err());
    }

    #[test]
    fn modes() {
        let coords = vec![vec![-1, 3], vec![1, 1]];
        let dims = [3, 4];
        assert!(ravel(&coords, &dims, OutOfRange::Raise, false).is_err());
        assert_eq!(
            ravel(&coords, &dims, OutOfRange::Wrap, false).unwrap(),
            [9, 1]
        );
        assert_eq!(
            ravel(&coords, &dims, OutOfRange::Clip, false).unwrap(),
            [1, 9]
        );
        assert!(ravel(&coords, &[3], OutOfRange::Raise, false).is_err());
    }
}
