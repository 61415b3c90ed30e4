#include <stdio.h>

#define N 30000

int arr[N];
int n;

int main() {
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d", arr + i);
    long long swaps = 0;
    int passes = 0;
    int swapped = 1;
    for (int end = n - 1; end > 0 && swapped; end--) {
        swapped = 0;
        passes++;
        for (int i = 0; i < end; i++) {
            if (arr[i] > arr[i + 1]) {
                int t = arr[i];
                arr[i] = arr[i + 1];
                arr[i + 1] = t;
                swaps++;
                swapped = 1;
            }
        }
    }
    printf("%lld %d\n", swaps, passes);
    for (int i = 0; i < n; i += (n + 9) / 10) printf("%d%c", arr[i], i + (n + 9) / 10 < n ? ' ' : '\n');
    return 0;
}
