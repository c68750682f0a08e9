#pragma once
// A Gaussian-process surrogate over a fixed (growable) pool of candidate points, built for ask/tell search:
// adding an observation costs O(n * pool) (incremental Cholesky, V = L^-1 K(X, pool) grown by one row), so
// the posterior of every candidate is available at every step. Matern-5/2 kernel with one lengthscale per
// feature (ARD), chosen by profile marginal likelihood on a coarse grid when refit() is called.
#include <cstddef>
#include <vector>

namespace kforge::scheduler::strategy {

using Features = std::vector<double>;

struct GpPosterior {
  std::vector<double> mean;      // per pool point, in the units of the y given to posterior()
  std::vector<double> variance;  // per pool point, latent (without the nugget)
};

class GpModel {
 public:
  explicit GpModel(std::size_t feature_count);

  std::size_t pool_size() const { return pool_.size(); }
  std::size_t observations() const { return obs_.size(); }
  void add_pool_point(const Features& f);
  void add_observation(const Features& f);  // y values come later, in posterior()
  // Chooses lengthscales and nugget for the current observations (y standardised), then rebuilds the factors.
  void refit(const std::vector<double>& y, bool per_feature_lengthscales);
  // Posterior over the pool for observations y (one per add_observation, same order).
  GpPosterior posterior(const std::vector<double>& y) const;

 private:
  double kernel(const Features& a, const Features& b) const;
  void rebuild();
  double profile_log_likelihood(const std::vector<double>& y_std, const std::vector<double>& lengthscales,
                                double nugget) const;

  std::vector<double> lengthscale_;
  double nugget_ = 1e-3;
  std::vector<Features> pool_;
  std::vector<Features> obs_;
  std::vector<std::vector<double>> chol_rows_;  // lower Cholesky factor of K(X, X) + nugget I, row i has i+1
  std::vector<std::vector<double>> v_;          // row i: (L^-1 K(X, pool))[i][*]
  std::vector<double> explained_;               // per pool point: sum_i v_[i][j]^2
};

}  // namespace kforge::scheduler::strategy
