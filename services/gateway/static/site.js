import{d as a}from"./chunks/chunk-M4EZLX24.js";a();
