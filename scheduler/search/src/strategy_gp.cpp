// GpModel: incremental Cholesky posterior over a candidate pool, hyperparameters by profile likelihood.
#include "strategy_gp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kforge::scheduler::strategy {
namespace {

constexpr double kMinPivot = 1e-10;

std::vector<double> standardised(const std::vector<double>& y, double& mean, double& scale) {
  mean = 0.0;
  for (const double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double ss = 0.0;
  for (const double v : y) ss += (v - mean) * (v - mean);
  scale = y.size() > 1 ? std::sqrt(ss / static_cast<double>(y.size() - 1)) : 1.0;
  if (!(scale > 1e-12)) scale = 1.0;
  std::vector<double> z(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) z[i] = (y[i] - mean) / scale;
  return z;
}

double matern52(double r) {
  const double s = std::sqrt(5.0) * r;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

double scaled_distance(const Features& a, const Features& b, const std::vector<double>& lengthscale) {
  double r2 = 0.0;
  for (std::size_t d = 0; d < a.size(); ++d) {
    const double t = (a[d] - b[d]) / lengthscale[d];
    r2 += t * t;
  }
  return std::sqrt(r2);
}

// Lower Cholesky factor of K = C + nugget I, rows of growing length; returns false when not positive definite.
bool cholesky(const std::vector<Features>& x, const std::vector<double>& ls, double nugget,
              std::vector<std::vector<double>>& l) {
  const std::size_t n = x.size();
  l.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    l[i].resize(i + 1);
    for (std::size_t j = 0; j <= i; ++j) {
      double s = matern52(scaled_distance(x[i], x[j], ls)) + (i == j ? nugget : 0.0);
      for (std::size_t m = 0; m < j; ++m) s -= l[i][m] * l[j][m];
      if (i == j) {
        if (s <= kMinPivot) return false;
        l[i][i] = std::sqrt(s);
      } else {
        l[i][j] = s / l[j][j];
      }
    }
  }
  return true;
}

std::vector<double> forward_solve(const std::vector<std::vector<double>>& l, const std::vector<double>& b) {
  std::vector<double> x(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    double s = b[i];
    for (std::size_t m = 0; m < i; ++m) s -= l[i][m] * x[m];
    x[i] = s / l[i][i];
  }
  return x;
}

}  // namespace

GpModel::GpModel(std::size_t feature_count) : lengthscale_(feature_count, 0.5) {}

double GpModel::kernel(const Features& a, const Features& b) const {
  return matern52(scaled_distance(a, b, lengthscale_));
}

void GpModel::add_pool_point(const Features& f) {
  pool_.push_back(f);
  double explained = 0.0;
  std::vector<double> k(obs_.size());
  for (std::size_t i = 0; i < obs_.size(); ++i) k[i] = kernel(obs_[i], f);
  const std::vector<double> v = forward_solve(chol_rows_, k);
  for (std::size_t i = 0; i < obs_.size(); ++i) {
    v_[i].push_back(v[i]);
    explained += v[i] * v[i];
  }
  explained_.push_back(explained);
}

void GpModel::add_observation(const Features& f) {
  const std::size_t n = obs_.size();
  std::vector<double> k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = kernel(obs_[i], f);
  std::vector<double> row = forward_solve(chol_rows_, k);
  double rest = 1.0 + nugget_;
  for (const double v : row) rest -= v * v;
  const double diag = std::sqrt(std::max(rest, kMinPivot));
  // New row of V: (K(f, pool) - sum_i row_i V_i) / diag.
  std::vector<double> v_new(pool_.size());
  for (std::size_t j = 0; j < pool_.size(); ++j) v_new[j] = kernel(f, pool_[j]);
  for (std::size_t i = 0; i < n; ++i) {
    const double c = row[i];
    const std::vector<double>& vi = v_[i];
    for (std::size_t j = 0; j < v_new.size(); ++j) v_new[j] -= c * vi[j];
  }
  for (std::size_t j = 0; j < v_new.size(); ++j) {
    v_new[j] /= diag;
    explained_[j] += v_new[j] * v_new[j];
  }
  row.push_back(diag);
  chol_rows_.push_back(std::move(row));
  v_.push_back(std::move(v_new));
  obs_.push_back(f);
}

void GpModel::rebuild() {
  std::vector<Features> observed = std::move(obs_);
  obs_.clear();
  chol_rows_.clear();
  v_.clear();
  explained_.assign(pool_.size(), 0.0);
  for (const Features& f : observed) add_observation(f);
}

double GpModel::profile_log_likelihood(const std::vector<double>& y_std, const std::vector<double>& ls,
                                       double nugget) const {
  std::vector<std::vector<double>> l;
  if (!cholesky(obs_, ls, nugget, l)) return -std::numeric_limits<double>::infinity();
  const std::vector<double> w = forward_solve(l, y_std);
  double q = 0.0, log_det = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    q += w[i] * w[i];
    log_det += std::log(l[i][i]);
  }
  const double n = static_cast<double>(w.size());
  return -0.5 * n * std::log(std::max(q / n, 1e-300)) - log_det;
}

void GpModel::refit(const std::vector<double>& y, bool per_feature_lengthscales) {
  double mean = 0.0, scale = 1.0;
  const std::vector<double> z = standardised(y, mean, scale);
  const std::size_t dims = lengthscale_.size();
  double best = -std::numeric_limits<double>::infinity();
  std::vector<double> best_ls = lengthscale_;
  double best_nugget = nugget_;
  for (const double l : {0.1, 0.2, 0.35, 0.6, 1.0, 2.0}) {
    for (const double g : {1e-4, 1e-3, 1e-2, 1e-1}) {
      const std::vector<double> ls(dims, l);
      const double score = profile_log_likelihood(z, ls, g);
      if (score > best) best = score, best_ls = ls, best_nugget = g;
    }
  }
  // Per-feature lengthscales need enough data to be told apart from noise.
  if (per_feature_lengthscales && obs_.size() >= 4 * dims) {
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (std::size_t d = 0; d < dims; ++d) {
        for (const double factor : {0.5, 0.7, 1.4, 2.0}) {
          std::vector<double> ls = best_ls;
          ls[d] = std::clamp(ls[d] * factor, 0.05, 20.0);
          const double score = profile_log_likelihood(z, ls, best_nugget);
          if (score > best) best = score, best_ls = ls;
        }
      }
    }
  }
  lengthscale_ = best_ls;
  nugget_ = best_nugget;
  rebuild();
}

GpPosterior GpModel::posterior(const std::vector<double>& y) const {
  double mean = 0.0, scale = 1.0;
  const std::vector<double> w = forward_solve(chol_rows_, standardised(y, mean, scale));
  double q = 0.0;
  for (const double v : w) q += v * v;
  const double signal = std::max(q / std::max<double>(1.0, static_cast<double>(w.size())), 1e-6);
  GpPosterior p;
  p.mean.assign(pool_.size(), 0.0);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::vector<double>& vi = v_[i];
    for (std::size_t j = 0; j < pool_.size(); ++j) p.mean[j] += vi[j] * w[i];
  }
  p.variance.resize(pool_.size());
  for (std::size_t j = 0; j < pool_.size(); ++j) {
    p.mean[j] = mean + scale * p.mean[j];
    p.variance[j] = scale * scale * signal * std::max(0.0, 1.0 - explained_[j]);
  }
  return p;
}

}  // namespace kforge::scheduler::strategy
