#pragma once
// Order statistics of measurements (times in ms, fitness values), one definition for every part of kforge.
#include <vector>

namespace kforge::jobs {

// The median: the middle value, or the mean of the middle two for an even count; NaN when there is none.
double median(std::vector<double> values);

// The upper median: the value at index n/2 once sorted, so always one of the values (a measured time, never a
// mean of two); NaN when there is none. Used where a stand-in must be a value that was really seen.
double upper_median(std::vector<double> values);

// (q3 - q1) / median of timing samples, quartiles interpolated between order statistics (numpy's default): the
// spread of the middle half, which one outlier among many samples does not move (the noise flag's measure, where
// (max - min) / median trips on one). NaN for fewer than 2 samples, a NaN among them, or a median not above 0.
double interquartile_spread_rel(std::vector<double> samples);

// Spearman's rank correlation of paired values (ties share their mean rank; +inf ranks above every finite
// value, as a failed evaluation ranks slowest); NaN for fewer than 3 pairs, unequal lengths, a NaN, or when
// either side is constant.
double rank_correlation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace kforge::jobs
