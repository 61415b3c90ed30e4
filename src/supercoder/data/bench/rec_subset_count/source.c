#include <stdio.h>

int n;
long long w[40], target;
long long exact, atmost, closest_gap = -1;

void dfs(int i, long long sum) {
    if (i == n) {
        if (sum == target) exact++;
        if (sum <= target) atmost++;
        long long gap = sum > target ? sum - target : target - sum;
        if (closest_gap < 0 || gap < closest_gap) closest_gap = gap;
        return;
    }
    dfs(i + 1, sum);
    dfs(i + 1, sum + w[i]);
}

int main() {
    scanf("%d %lld", &n, &target);
    for (int i = 0; i < n; i++) scanf("%lld", &w[i]);
    dfs(0, 0);
    printf("%lld %lld %lld\n", exact, atmost, closest_gap);
    return 0;
}
