/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Linked with every object of one layer and the layers below it (CMakeLists.txt): it links
 * only if the layer calls nothing above it. Never run.
 */
int main(void)
{
	return 0;
}
