//! A joint distribution over pairs of small counts, on a dense grid.
//!
//! A pool's failed saves jointly with its harm events are read whole, row
//! by row (the states each number of failed saves leaves) and column by
//! column (the harm events): a grid gives both without hashing, and its
//! bounds are the most of each count.

/// P(a, b) for a pair of counts, in `cells[a * cols + b]`, with no row or
/// column past the last that holds any chance.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Grid {
    cols: usize,
    cells: Vec<f64>,
}

impl Grid {
    /// `rows` by `cols` cells, every chance 0 (trim it once filled).
    pub(super) fn zeros(rows: usize, cols: usize) -> Self {
        Grid {
            cols,
            cells: vec![0.0; rows * cols],
        }
    }

    /// The pairs of `sums` (each pair any number of times) added up.
    pub(super) fn from_sums(sums: impl IntoIterator<Item = ((u32, u32), f64)>) -> Self {
        let sums: Vec<_> = sums.into_iter().filter(|e| e.1 > 0.0).collect();
        let rows = sums.iter().map(|e| e.0 .0 as usize + 1).max().unwrap_or(0);
        let cols = sums.iter().map(|e| e.0 .1 as usize + 1).max().unwrap_or(0);
        let mut grid = Grid::zeros(rows, cols);
        for ((a, b), p) in sums {
            grid.add(a as usize, b as usize, p);
        }
        grid
    }

    /// Add `p` to P(`a`, `b`).
    pub(super) fn add(&mut self, a: usize, b: usize, p: f64) {
        self.cells[a * self.cols + b] += p;
    }

    /// Without the rows and columns past the last that hold any chance.
    #[must_use]
    pub(super) fn trimmed(self) -> Self {
        let cols = self.cols;
        let rows = self
            .cells
            .chunks_exact(cols.max(1))
            .rposition(|row| row.iter().any(|&p| p > 0.0))
            .map_or(0, |r| r + 1);
        let used = self
            .cells
            .chunks_exact(cols.max(1))
            .take(rows)
            .filter_map(|row| row.iter().rposition(|&p| p > 0.0))
            .max()
            .map_or(0, |b| b + 1);
        if used == cols {
            let mut cells = self.cells;
            cells.truncate(rows * cols);
            return Grid { cols, cells };
        }
        let mut cells = Vec::with_capacity(rows * used);
        for row in self.cells.chunks_exact(cols).take(rows) {
            cells.extend_from_slice(&row[..used]);
        }
        Grid { cols: used, cells }
    }

    /// Rows: one past the most of the first count (0 when empty).
    pub(super) fn rows(&self) -> usize {
        self.cells.len().checked_div(self.cols).unwrap_or(0)
    }

    /// Columns: one past the most of the second count (0 when empty).
    #[cfg(test)]
    pub(super) fn cols(&self) -> usize {
        self.cols
    }

    /// P(`a`, b) for every b.
    pub(super) fn row(&self, a: usize) -> &[f64] {
        &self.cells[a * self.cols..][..self.cols]
    }

    /// The chance of each value of the second count, whatever the first.
    pub(super) fn second(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.cols];
        for row in self.cells.chunks_exact(self.cols.max(1)) {
            for (o, &p) in out.iter_mut().zip(row) {
                *o += p;
            }
        }
        out
    }

    /// Every pair with a chance, row by row.
    pub(super) fn iter(&self) -> impl Iterator<Item = ((u32, u32), f64)> + '_ {
        self.cells
            .chunks_exact(self.cols.max(1))
            .enumerate()
            .flat_map(|(a, row)| {
                row.iter()
                    .enumerate()
                    .filter(|e| *e.1 > 0.0)
                    .map(move |(b, &p)| ((a as u32, b as u32), p))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_holds_its_sums_and_nothing_past_them() {
        let grid = Grid::from_sums([((2, 0), 0.25), ((0, 1), 0.5), ((2, 0), 0.25), ((1, 3), 0.0)]);
        assert_eq!((grid.rows(), grid.cols()), (3, 2));
        assert_eq!(grid.row(2), &[0.5, 0.0]);
        assert_eq!(grid.second(), vec![0.5, 0.5]);
        let pairs: Vec<_> = grid.iter().collect();
        assert_eq!(pairs, vec![((0, 1), 0.5), ((2, 0), 0.5)]);
        assert_eq!(Grid::from_sums([]).rows(), 0);
    }

    #[test]
    fn trimming_drops_empty_rows_and_columns_at_the_end() {
        let mut grid = Grid::zeros(4, 5);
        grid.add(1, 2, 0.75);
        grid.add(0, 0, 0.25);
        let grid = grid.trimmed();
        assert_eq!((grid.rows(), grid.cols()), (2, 3));
        assert_eq!(grid.row(1), &[0.0, 0.0, 0.75]);
        assert_eq!(Grid::zeros(3, 3).trimmed().rows(), 0);
    }
}
