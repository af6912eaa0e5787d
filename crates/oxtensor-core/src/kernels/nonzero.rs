//! `Nonzero`'s loop: the coordinates of the nonzero elements of a tensor of
//! any dtype and layout, one int64 array per axis, in C order (NumPy's
//! `nonzero`; NaN counts as nonzero, as in NumPy's `astype(bool)`).

use crate::dtype::DType;
use crate::kernels::cast::cast;
use crate::kernels::copy::to_contiguous;
use crate::tensor::Tensor;

/// One coordinate vector per axis of `t`, listing its nonzero elements in
/// C order.
pub fn nonzero_coords(t: &Tensor) -> Vec<Vec<i64>> {
    let mask = to_contiguous(&cast(t, DType::Bool));
    let flags = mask.as_slice::<bool>().expect("a contiguous bool tensor");
    let shape = t.shape();
    let mut coords: Vec<Vec<i64>> = vec![Vec::new(); shape.len()];
    for (flat, _) in flags.iter().enumerate().filter(|(_, &b)| b) {
        let mut rest = flat;
        for d in (0..shape.len()).rev() {
            coords[d].push((rest % shape[d]) as i64);
            rest /= shape[d];
        }
    }
    coords
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_in_c_order() {
        let t = Tensor::from_vec(vec![2, 3], vec![0.0f64, 1.0, 0.0, f64::NAN, 0.0, -2.0]).unwrap();
        assert_eq!(nonzero_coords(&t), vec![vec![0, 1, 1], vec![1, 0, 2]]);
    }

    #[test]
    fn empty_input_gives_empty_coordinates() {
        let t = Tensor::from_vec(vec![0, 4], Vec::<i32>::new()).unwrap();
        assert_eq!(nonzero_coords(&t), vec![Vec::<i64>::new(), Vec::new()]);
    }
}
