/* Latency of dependent loads over an anonymous region, with or without
 * 2 MiB pages: the lines are shuffled into a permutation that is followed
 * from line 0, each load's address read by the load before.
 * build: cc -O2 -o dependent-loads dependent-loads.c
 * usage: dependent-loads MIB HUGE   (HUGE 1 advises transparent huge pages)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <stdint.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t len=(size_t)atol(argv[1])<<20; int huge=atoi(argv[2]);
  uint64_t*p=mmap(0,len,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  if(huge)madvise(p,len,MADV_HUGEPAGE);
  size_t n=len/64; for(size_t i=0;i<n;i++)p[i*8]=i;
  // random permutation cycle by lines
  size_t lines=len/64; uint64_t x=88172645463325252ULL;
  for(size_t i=lines-1;i>0;i--){x^=x<<13;x^=x>>7;x^=x<<17; size_t j=x%(i+1); uint64_t t=p[i*8];p[i*8]=p[j*8];p[j*8]=t;}
  // p[i*8] holds a line index permutation -> use as next
  size_t o=0,m=20000000; double t0=now(); for(size_t i=0;i<m;i++){o=p[o*8];} double t=now()-t0;
  printf("%zu MiB huge=%d dependent %.1f ns (%zu)\n",len>>20,huge,t/m*1e9,o);
  return 0;}
