#pragma once
// Outlier detection that a few bad values cannot mask: the median and the median absolute
// deviation (MAD) instead of the mean and standard deviation, which the outliers themselves drag.

#include <span>
#include <vector>

namespace fb {

// Throws std::invalid_argument on an empty input.
double median_of(std::span<const double> values);

// Iglewicz and Hoaglin's modified z-score of every value: 0.6745 (x - median) / MAD. The constant
// makes it comparable to a z-score for normal data; |z| > 3.5 is their outlier rule. When more than
// half the values are equal the MAD is 0; the mean absolute deviation scaled by 1.2533 (its ratio
// to the standard deviation for normal data) stands in, and when that is 0 too, every score is 0.
std::vector<double> modified_z_scores(std::span<const double> values);

}  // namespace fb
