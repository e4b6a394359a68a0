#include <iostream>
#include <stdexcept>
#include <vector>

namespace linalg {

template <typename T>
class Matrix {
public:
    Matrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

    T &operator()(std::size_t r, std::size_t c) { return data_.at(r * cols_ + c); }
    const T &operator()(std::size_t r, std::size_t c) const { return data_.at(r * cols_ + c); }

    Matrix operator*(const Matrix &o) const {
        if (cols_ != o.rows_) {
            throw std::invalid_argument("shapes do not match");
        }
        Matrix out(rows_, o.cols_);
        for (std::size_t i = 0; i < rows_; ++i) {
            for (std::size_t j = 0; j < o.cols_; ++j) {
                T sum{};
                for (std::size_t k = 0; k < cols_; ++k) {
                    sum += (*this)(i, k) * o(k, j);
                }
                out(i, j) = sum;
            }
        }
        return out;
    }

    std::size_t rows() const { return rows_; }
    std::size_t cols() const { return cols_; }

private:
    std::size_t rows_, cols_;
    std::vector<T> data_;
};

template <typename T>
std::ostream &operator<<(std::ostream &os, const Matrix<T> &m) {
    for (std::size_t i = 0; i < m.rows(); ++i) {
        for (std::size_t j = 0; j < m.cols(); ++j) {
            os << m(i, j) << (j + 1 < m.cols() ? " " : "\n");
        }
    }
    return os;
}

}  // namespace linalg

int main() {
    linalg::Matrix<int> a(2, 2);
    a(0, 0) = 1; a(0, 1) = 2; a(1, 0) = 3; a(1, 1) = 4;
    std::cout << a * a;
    auto twice = [](int x) { return 2 * x; };
    std::cout << twice(21) << std::endl;
    return 0;
}
