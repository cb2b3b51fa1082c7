__global__ void not_a_test(void) {}
