#include <vector>

namespace geo {

class Vec {
public:
    double dot(const Vec &o) const {
        return x * o.x + y * o.y;
    }
    double x, y;
};

template <typename T>
T twice(T a) {
    return a + a;
}

}  // namespace geo
